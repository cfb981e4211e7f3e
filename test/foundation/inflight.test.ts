/** Shutdown waits for handlers still running after their client disconnected. */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';

let ctx: TestContext;
let release: () => void = () => {};
let finished = false;

beforeAll(async () => {
  ctx = await createTestApp({
    register: (app) => {
      app.get('/test/slow', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
        await new Promise<void>((r) => {
          release = r;
        });
        finished = true;
        return { ok: true };
      });
    },
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => ctx.close());

describe('in-flight tracking', () => {
  it('counts a handler whose client went away until it finishes', async () => {
    const port = (ctx.app.server.address() as { port: number }).port;
    const req = http.get({ host: '127.0.0.1', port, path: '/test/slow' });
    req.on('error', () => {});
    await new Promise((r) => setTimeout(r, 100));
    expect(ctx.app.inflight.count()).toBe(1);
    req.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await ctx.app.inflight.drain(50)).toBe(false);
    release();
    expect(await ctx.app.inflight.drain(2000)).toBe(true);
    expect(finished).toBe(true);
  });

  it('does not count requests aborted before their handler', async () => {
    const port = (ctx.app.server.address() as { port: number }).port;
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/api/v1/auth/login',
      method: 'POST',
      headers: { 'content-length': '1000', 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.write('{"partial":');
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    expect(await ctx.app.inflight.drain(2000)).toBe(true);
  });
});
