/**
 * The merchants' webhook endpoints for the delivery bench, in a process of their own (a merchant's
 * server is not on the worker's thread): answers 200 to every POST and reports each event's arrival
 * (id, wall-clock ms) to the parent over IPC in batches every 10 ms. Sends {port} once listening.
 */
import http from 'node:http';

let batch = [];
const now = () => performance.timeOrigin + performance.now();
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200).end();
    batch.push([String(req.headers['x-svc-event-id']), now()]);
  });
});
setInterval(() => {
  if (batch.length === 0) return;
  process.send({ arrivals: batch });
  batch = [];
}, 10).unref();
process.on('disconnect', () => process.exit(0));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
