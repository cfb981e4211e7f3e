/**
 * @svc/sdk session auth (the dashboard's) against a started service: login, rotation at
 * POST /auth/refresh shortly before expiry and after a 401 (one refresh for concurrent requests,
 * since a refresh token works once), `onTokens` with every pair, logout.
 */
import { createClient, type SessionTokens } from '@svc/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { freePort } from '../helpers/process';

let ctx: TestContext;
let baseUrl: string;
const email = `sdk-session-${Date.now()}@example.com`;
const password = 'correct horse battery';

beforeAll(async () => {
  ctx = await createTestApp();
  const port = await freePort();
  await ctx.app.listen({ port, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${port}`;
  const reg = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { email, password, company_name: 'SDK Session Ltd', full_name: 'Sam Session' },
  });
  expect(reg.statusCode, reg.body).toBe(201);
  const code = /\b(\d{6})\b/.exec((ctx.mailer as MemoryMailer).lastTo(email)!.text)![1];
  const v = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/auth/register/verify-email',
    payload: { email, code },
  });
  expect(v.statusCode, v.body).toBe(200);
}, 180_000);
afterAll(async () => ctx?.close());

it('logs in, rotates the pair before expiry and after a 401 (single-flight), and logs out', async () => {
  const pairs: (SessionTokens | null)[] = [];
  const sent: { path: string; status: number; authorization: string | null }[] = [];
  let frozenAt: number | null = null;
  const sdk = createClient({
    baseUrl,
    now: () => frozenAt ?? ctx.clock.now().getTime(),
    onTokens: (p) => pairs.push(p),
    fetch: async (req) => {
      const res = await globalThis.fetch(req.clone());
      sent.push({
        path: new URL(req.url).pathname,
        status: res.status,
        authorization: req.headers.get('authorization'),
      });
      return res;
    },
  });
  const refreshes = () => sent.filter((s) => s.path === '/api/v1/auth/refresh').length;

  const login = await sdk.login(email, password);
  expect(login.status).toBe('authenticated');
  expect(pairs).toHaveLength(1);
  expect((await sdk.GET('/api/v1/auth/me')).response.status).toBe(200);

  // 30-minute access token: inside its last minute the SDK rotates first.
  ctx.clock.advanceSeconds(30 * 60 - 30);
  const me = await sdk.GET('/api/v1/auth/me');
  expect(me.response.status).toBe(200);
  expect(refreshes()).toBe(1);
  expect(pairs).toHaveLength(2);
  expect(pairs[1]!.refreshToken).not.toBe(pairs[0]!.refreshToken);
  expect(sent.at(-1)!.authorization).toBe(`Bearer ${pairs[1]!.accessToken}`);

  // The SDK's clock lags: it sends the expired token, gets 401, rotates once for all three requests.
  frozenAt = ctx.clock.now().getTime();
  ctx.clock.advanceSeconds(31 * 60);
  const results = await Promise.all([1, 2, 3].map(() => sdk.GET('/api/v1/auth/me')));
  expect(results.map((r) => r.response.status)).toEqual([200, 200, 200]);
  expect(refreshes()).toBe(2);
  expect(pairs).toHaveLength(3);
  expect(sdk.sessionTokens()).toEqual(pairs[2]);

  await sdk.logout();
  expect(pairs.at(-1)).toBeNull();
  expect(sdk.sessionTokens()).toBeNull();
  expect((await sdk.GET('/api/v1/auth/me')).response.status).toBe(401);
  // The revoked refresh session cannot be used again.
  const again = createClient({ baseUrl, ...pairs[2]!, now: () => ctx.clock.now().getTime() });
  expect((await again.GET('/api/v1/auth/me')).response.status).toBe(401);
});
