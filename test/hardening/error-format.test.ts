/**
 * Every error leaves in the spec's format, including those Fastify and Node's HTTP parser answer
 * themselves: malformed URLs (400), over-long path parameters (414), header blocks too large (431),
 * garbage on the socket (400), oversized bodies (413), requests arriving during shutdown (503).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';

let ctx: TestContext;
let caller: TestCaller;
let release: () => void = () => {};

beforeAll(async () => {
  ctx = await createTestApp({
    register: (app) => {
      app.get('/test/slow', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
        await new Promise<void>((r) => {
          release = r;
        });
        return { ok: true };
      });
    },
  });
  caller = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const expectDetail = (res: { statusCode: number; json(): unknown }, status: number) => {
  expect(res.statusCode).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['detail']);
  expect(typeof body.detail).toBe('string');
};

/** Raw HTTP over a socket: what a client sees when the parser, not a route, answers. */
function rawExchange(port: number, data: string, onSent?: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(data, () => onSent?.());
    });
    let out = '';
    sock.on('data', (d) => {
      out += d;
    });
    sock.on('close', () => resolve(out));
    sock.on('error', (err) => (out ? resolve(out) : reject(err)));
    sock.setTimeout(10_000, () => sock.destroy());
  });
}

function parseResponses(raw: string): { status: number; body: string }[] {
  const out: { status: number; body: string }[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, headEnd);
    const status = Number(head.slice(9, 12));
    const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    out.push({ status, body: rest.slice(headEnd + 4, headEnd + 4 + len) });
    rest = rest.slice(headEnd + 4 + len);
  }
  return out;
}

describe('router errors', () => {
  it('a malformed percent-encoding in the path is 400 {detail}', async () => {
    for (const url of ['/api/v1/transactions/%ED%A0%80', '/api/v1/transactions/%FF', '/checkout/%E0%A4%A']) {
      const res = await ctx.app.inject({ url, headers: caller.headers });
      expectDetail(res, 400);
    }
  });

  it('a path parameter over the maximum length is 414 {detail}', async () => {
    const res = await ctx.app.inject({
      url: `/api/v1/transactions/${'a'.repeat(300)}`,
      headers: caller.headers,
    });
    expectDetail(res, 414);
  });

  it('a body over the limit is 413 and invalid JSON is 422, both in the spec format', async () => {
    const big = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { ...caller.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ project_name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expectDetail(big, 413);
    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { ...caller.headers, 'content-type': 'application/json' },
      payload: '{"project_name":',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });
});

describe('HTTP parser errors and shutdown (real socket)', () => {
  let port = 0;
  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as net.AddressInfo).port;
  });

  it('a header block that is too large is 431 {detail}', async () => {
    const raw = await rawExchange(
      port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const [res] = parseResponses(raw);
    expect(res!.status).toBe(431);
    expect(JSON.parse(res!.body)).toEqual({ detail: 'Request Header Fields Too Large' });
  });

  it('garbage on the socket is 400 {detail}', async () => {
    const [res] = parseResponses(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(res!.status).toBe(400);
    expect(JSON.parse(res!.body)).toEqual({ detail: 'Bad Request' });
  });

  it('a request arriving on a live connection while the server closes is 503 {detail}', async () => {
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    let out = '';
    sock.on('data', (d) => {
      out += d;
    });
    sock.write('GET /test/slow HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 100 && release.length === 0 && !ctx.app.inflight.count(); i++)
      await new Promise((r) => setTimeout(r, 10));
    const closed = ctx.app.close();
    await new Promise((r) => setTimeout(r, 50));
    sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 50));
    release();
    await new Promise((r) => sock.once('close', r));
    await closed;
    const [first, second] = parseResponses(out);
    expect(first!.status).toBe(200);
    expect(second!.status).toBe(503);
    expect(JSON.parse(second!.body)).toEqual({ detail: 'Service Unavailable' });
    // The refused request was never counted as in flight, so shutdown's drain is not thrown off.
    expect(ctx.app.inflight.count()).toBe(0);
  });
});
