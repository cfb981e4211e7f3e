#!/usr/bin/env node
// A minimal webhook receiver for the quick start: verifies X-SVC-Signature over the raw body
// (HMAC-SHA256 of "<X-SVC-Timestamp>.<raw body>", the key being the whole whsec_... string) and
// prints one line per delivery. The secret is read from $SVC_WEBHOOK_SECRET, or from the file
// named by $SVC_WEBHOOK_SECRET_FILE at each request (the quick start learns it after starting us).
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';

const secret = () =>
  process.env.SVC_WEBHOOK_SECRET ??
  (process.env.SVC_WEBHOOK_SECRET_FILE && fs.existsSync(process.env.SVC_WEBHOOK_SECRET_FILE)
    ? fs.readFileSync(process.env.SVC_WEBHOOK_SECRET_FILE, 'utf8').trim()
    : '');

function verified(raw, timestamp, signature) {
  const key = secret();
  if (!key || !/^\d{1,12}$/.test(String(timestamp))) return false;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const m = /^sha256=([0-9a-f]{64})$/.exec(String(signature ?? ''));
  if (!m) return false;
  const expected = createHmac('sha256', key).update(`${timestamp}.`).update(raw).digest();
  const given = Buffer.from(m[1], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    if (!verified(raw, req.headers['x-svc-timestamp'], req.headers['x-svc-signature'])) {
      console.log('rejected: bad signature');
      res.writeHead(400).end();
      return;
    }
    const event = JSON.parse(raw.toString('utf8'));
    const status = event.data?.current_payment_status ?? event.data?.status ?? '';
    console.log(`verified ${event.type} ${status} ${event.data?.transaction_id ?? ''}`.trim());
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  });
});
server.listen(Number(process.env.RECEIVER_PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => server.close(() => process.exit(0)));
