/**
 * The webhook HTTP sender on its own, against a local server: the verdict is the status that arrives
 * within the deadline, the body is kept up to the cap and abandoned when slow, and a request still
 * queued at its deadline is never sent late.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../src/outbox/http-sender';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

describe('webhook HTTP sender', () => {
  let server: http.Server;
  let base: string;
  let handle: Handler = (_req, res) => res.end();
  const seen: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      handle(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const sender = (over: Partial<Parameters<typeof createHttpSender>[0]> = {}) =>
    createHttpSender({
      timeoutMs: 300,
      maxResponseBytes: 64,
      guardPrivateNetworks: false,
      connectionsPerOrigin: 4,
      ...over,
    });

  it('returns the status, the headers and the first bytes of the body; sends the body and headers as given', async () => {
    let got = '';
    handle = (req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        got = `${req.method} ${req.url} ${req.headers['webhook-id']} ${b}`;
        res.writeHead(429, { 'retry-after': '7' }).end('slow down');
      });
    };
    const s = sender();
    const r = await s.post(
      `${base}/hooks?x=1`,
      { 'webhook-id': 'msg_1', 'content-type': 'application/json' },
      '{"a":1}',
    );
    await s.close();
    expect(got).toBe('POST /hooks?x=1 msg_1 {"a":1}');
    expect(r).toMatchObject({ status: 429, bodySnippet: 'slow down', error: null, refused: false });
    expect(r.headers['retry-after']).toBe('7');
  });

  it('keeps only the configured number of response bytes', async () => {
    handle = (_req, res) => res.end('x'.repeat(10_000));
    const s = sender();
    const r = await s.post(`${base}/big`, {}, '{}');
    await s.close();
    expect(r.status).toBe(200);
    expect(r.bodySnippet).toBe('x'.repeat(64));
  });

  it('keeps the verdict when the body trickles past the deadline', async () => {
    handle = (_req, res) => {
      res.writeHead(200);
      res.write('first ');
      const t = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(t));
    };
    const s = sender();
    const started = Date.now();
    const r = await s.post(`${base}/trickle`, {}, '{}');
    await s.close();
    expect(r.status).toBe(200);
    expect(r.error).toBeNull();
    expect(r.bodySnippet?.startsWith('first ')).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('fails with a timeout when no status arrives within the deadline', async () => {
    handle = () => {};
    const s = sender();
    const r = await s.post(`${base}/silent`, {}, '{}');
    await s.close();
    expect(r).toMatchObject({ status: null, error: 'timeout: no response within 300 ms', refused: false });
    expect(r.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('never sends a request that was still queued when its deadline passed', async () => {
    handle = () => {};
    seen.length = 0;
    const s = sender({ connectionsPerOrigin: 1 });
    const [first, second] = await Promise.all([
      s.post(`${base}/held`, {}, '{}'),
      s.post(`${base}/queued`, {}, '{}'),
    ]);
    await new Promise((r) => setTimeout(r, 200));
    await s.close();
    expect(first.error).toMatch(/^timeout/);
    expect(second.error).toMatch(/^timeout/);
    expect(seen).toEqual(['/held']);
  });

  it('reports a refused connection and refuses a URL that is not http(s)', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const s = sender();
    const r = await s.post(`http://127.0.0.1:${port}/x`, {}, '{}');
    const bad = await s.post('ftp://example.com/x', {}, '{}');
    await s.close();
    expect(r).toMatchObject({ status: null, error: 'connection refused', refused: false });
    expect(bad).toMatchObject({ status: null, error: 'refused: not an http(s) URL', refused: true });
  });
});
