/**
 * A counterparty VASP's TRP endpoint reduced to what a bench needs: it takes POSTs that carry TRP's
 * headers (`api-version`, UUID `request-identifier`), echoes both and answers 200 `{"version"}`
 * (docs/vendors/trp.md, "Messages"); a request without them is 400. `--port N` to listen on.
 */
import { createServer } from 'node:http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function startTrpPeer(port: number) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const version = req.headers['api-version'];
      const id = req.headers['request-identifier'];
      if (req.method !== 'POST' || typeof version !== 'string' || typeof id !== 'string' || !UUID.test(id)) {
        res.writeHead(400).end();
        return;
      }
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'api-version': version,
          'request-identifier': id,
        })
        .end(JSON.stringify({ version }));
    });
  });
  return new Promise<typeof server>((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--port');
  await startTrpPeer(Number(process.argv[i + 1]));
}
