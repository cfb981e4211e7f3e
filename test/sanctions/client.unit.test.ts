/**
 * Reading a list over HTTP (a local server standing in for the publishers' file servers): the file
 * as served, the User-Agent OFAC's service requires, and the failures that must keep the current
 * version: an error status, a body shorter than its Content-Length, a stall past the deadline, a file
 * over the size limit. Files are covered by the production test.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchListFile, ListFetchError } from '../../src/providers/sanctions/client';

const body = readFileSync(new URL('../fixtures/sanctions/un-consolidated.xml', import.meta.url));
let server: Server;
let base: string;
const agents: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    agents.push(String(req.headers['user-agent']));
    if (req.url === '/ok') return res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    if (req.url === '/503') return res.writeHead(503, { 'retry-after': '60' }).end('busy');
    if (req.url === '/short') {
      res.writeHead(200, { 'content-length': String(body.length) });
      res.write(body.subarray(0, 100));
      return setTimeout(() => res.destroy(), 20);
    }
    if (req.url === '/stall') {
      res.writeHead(200);
      res.write(body.subarray(0, 100));
      return; // never ends
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const get = (path: string, limits = { timeoutMs: 2000, maxBytes: 10_000_000 }) =>
  fetchListFile({ kind: 'url', url: `${base}${path}` }, limits);

describe('list download', () => {
  it('returns the file as served, with a User-Agent', async () => {
    const got = await get('/ok');
    expect(got.kind === 'file' && got.bytes.equals(body)).toBe(true);
    expect(agents.at(-1)).toMatch(/sanctions-lists loader/);
  });
  it('refuses an error status, a short body, a stall and an oversize file', async () => {
    await expect(get('/503')).rejects.toThrow(new ListFetchError('HTTP 503', { retryAfterMs: 60_000 }));
    await expect(get('/503')).rejects.toMatchObject({ retryAfterMs: 60_000 });
    await expect(get('/short')).rejects.toThrow(ListFetchError);
    await expect(get('/stall', { timeoutMs: 300, maxBytes: 10_000_000 })).rejects.toThrow(
      'no complete answer within 300 ms',
    );
    await expect(get('/ok', { timeoutMs: 2000, maxBytes: 1024 })).rejects.toThrow(
      'file is larger than 1024 bytes',
    );
    await expect(
      fetchListFile({ kind: 'file', path: '/nonexistent/x.xml' }, { timeoutMs: 1000, maxBytes: 1 }),
    ).rejects.toThrow(/cannot read/);
  });
});
