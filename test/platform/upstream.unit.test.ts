import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseRetryAfter, Upstream, UpstreamError, type UpstreamOptions } from '../../src/platform/upstream';

/** A vendor whose next answers a test scripts: status, headers, body, or a delay past the deadline. */
interface Scripted {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}
let script: Scripted[] = [];
let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const next = script.shift() ?? { status: 200, body: '{"ok":true}' };
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(next.status ?? 200, { 'content-type': 'application/json', ...next.headers });
        res.end(next.body ?? '{}');
      };
      if (next.delayMs) setTimeout(answer, next.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  script = [];
  seen = [];
});

function client(overrides: Partial<UpstreamOptions> = {}) {
  const sleeps: number[] = [];
  let now = 1_000_000;
  const registry = new Registry();
  const upstream = new Upstream({
    name: 'vendor',
    baseUrl,
    timeoutMs: 300,
    maxAttempts: 3,
    breaker: { failureThreshold: 3, cooldownMs: 30_000 },
    metrics: registry,
    log: pino({ level: 'silent' }),
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { upstream, sleeps, registry, advance: (ms: number) => (now += ms) };
}

const read = { operation: 'things.get', method: 'GET' as const, path: '/things/1', retrySafe: true };
const create = {
  operation: 'things.create',
  method: 'POST' as const,
  path: '/things',
  body: '{"a":1}',
  retrySafe: false,
};

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

describe('Upstream', () => {
  it('sends under the base path with fresh signature headers and returns 2xx and 4xx answers', async () => {
    const { upstream } = client();
    script = [
      { status: 201, body: '{"id":"t1"}' },
      { status: 404, body: '{"error":"nope"}' },
    ];
    let signed = 0;
    const res = await upstream.request({
      ...create,
      headers: { 'content-type': 'application/json' },
      sign: ({ method, path, body }) => ({ 'x-sig': `${method} ${path} ${body?.toString()} ${++signed}` }),
    });
    expect(res.status).toBe(201);
    expect(res.json()).toEqual({ id: 't1' });
    expect(seen[0]?.url).toBe('/api/things');
    expect(seen[0]?.headers['x-sig']).toBe('POST /things {"a":1} 1');
    expect(seen[0]?.body).toBe('{"a":1}');
    const missing = await upstream.request(read);
    expect(missing.status).toBe(404);
    expect(seen).toHaveLength(2);
  });

  it('retries a safe request on 5xx with jittered backoff, signing each attempt anew', async () => {
    const { upstream, sleeps } = client();
    script = [{ status: 502 }, { status: 500 }, { status: 200, body: '{"v":3}' }];
    let n = 0;
    const res = await upstream.request({ ...read, sign: () => ({ 'x-n': String(++n) }) });
    expect(res.json()).toEqual({ v: 3 });
    expect(seen.map((s) => s.headers['x-n'])).toEqual(['1', '2', '3']);
    // full jitter with random() = 0.5 over 200 ms * 2^(attempt-1)
    expect(sleeps).toEqual([100, 200]);
  });

  it('sends an unsafe request once: a 5xx or a timeout is thrown, never repeated', async () => {
    const { upstream } = client();
    script = [{ status: 500 }];
    expect((await failure(upstream.request(create))).kind).toBe('server');
    script = [{ delayMs: 1000 }];
    const timedOut = await failure(upstream.request(create));
    expect(timedOut.kind).toBe('timeout');
    expect(seen).toHaveLength(2);
  });

  it('waits the Retry-After of a 429, and fails at once when it is longer than allowed', async () => {
    const { upstream, sleeps } = client();
    script = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 200 }];
    expect((await upstream.request(read)).status).toBe(200);
    expect(sleeps).toEqual([2000]);
    script = [{ status: 429, headers: { 'retry-after': '60' } }];
    const limited = await failure(upstream.request(read));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.retryAfterMs).toBe(60_000);
    expect(seen).toHaveLength(3);
  });

  it('opens the breaker after consecutive failures, answers at once while open, and closes after a good probe', async () => {
    const { upstream, advance, registry } = client({ maxAttempts: 1 });
    script = [{ status: 500 }, { status: 500 }, { status: 500 }];
    for (let i = 0; i < 3; i++) await failure(upstream.request(read));
    expect(upstream.breakerState()).toBe('open');
    const open = await failure(upstream.request(read));
    expect(open.kind).toBe('circuit_open');
    expect(seen).toHaveLength(3);

    advance(30_000);
    expect(upstream.breakerState()).toBe('half_open');
    script = [{ status: 500 }];
    await failure(upstream.request(read));
    expect(upstream.breakerState()).toBe('open'); // a failed probe opens it again

    advance(30_000);
    script = [{ status: 200 }];
    expect((await upstream.request(read)).status).toBe(200);
    expect(upstream.breakerState()).toBe('closed');

    const text = await registry.metrics();
    expect(text).toContain('svc_upstream_breaker_state{upstream="vendor"} 0');
    expect(text).toMatch(
      /svc_upstream_errors_total\{upstream="vendor",operation="things.get",kind="circuit_open"\} 1/,
    );
    expect(text).toMatch(
      /svc_upstream_request_duration_seconds_count\{upstream="vendor",operation="things.get",outcome="server_error"\} 4/,
    );
  });

  it('reports a refused connection as a network failure and an unreadable body as bad_response', async () => {
    const { upstream } = client({ baseUrl: 'http://127.0.0.1:1', maxAttempts: 2 });
    expect((await failure(upstream.request(read))).kind).toBe('network');
    const ok = client();
    script = [{ status: 200, body: 'not json' }];
    const res = await ok.upstream.request(read);
    expect(() => res.json()).toThrow(UpstreamError);
  });

  it('two clients share one registry', () => {
    const a = client();
    expect(
      () =>
        new Upstream({
          name: 'other',
          baseUrl,
          timeoutMs: 100,
          maxAttempts: 1,
          breaker: { failureThreshold: 1, cooldownMs: 1 },
          metrics: a.registry,
          log: pino({ level: 'silent' }),
        }),
    ).not.toThrow();
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});

describe('a logged UpstreamError (review H8 point 4)', () => {
  it('keeps the error answer for the adapter but never writes its body to the log', () => {
    const body = Buffer.from('{"error":{"message":"secret-vendor-detail payer@example.com"}}');
    const err = new UpstreamError('server', 'tokenio', 'createPayment', {
      status: 503,
      response: {
        status: 503,
        headers: { 'x-trace': 'abc' },
        body,
        text: () => body.toString('utf8'),
        json: () => JSON.parse(body.toString('utf8')),
      },
    });
    expect(err.response?.status).toBe(503);
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (l: string) => lines.push(l) });
    log.warn({ err }, 'upstream failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('createPayment');
    expect(lines[0]).not.toContain('secret-vendor-detail');
    expect(lines[0]).not.toContain('payer@example.com');
    // Neither the body's text nor its bytes (a Buffer serializes as its byte array).
    const logged = JSON.parse(lines[0]!).err as Record<string, unknown>;
    expect(logged).not.toHaveProperty('response');
    expect(lines[0]).not.toContain(JSON.stringify([...body]).slice(1, 40));
    expect(JSON.parse(JSON.stringify(err))).not.toHaveProperty('response');
  });
});
