/**
 * The API-key lockout (5 failures -> 5 minutes of 429 with Retry-After and X-RateLimit-*), moved
 * through with the ManualClock; and the environment rules on a production deployment.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyLockouts, clients } from '../../src/db/schema/index';
import { sweepApiKeyLockouts } from '../../src/modules/auth/api-keys/credentials.service';
import { M } from '../../src/shared/messages';
import { createTestApp, PRODUCTION_PAYEE_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';

let ctx: TestContext;
let prod: TestContext;
let smtp: SmtpCapture;
let owner: TestCaller;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  ctx = await createTestApp({ mailer: smtp.mailer });
  // A production deployment over the same database (its own secrets, so its own credentials).
  prod = await createTestApp({
    mailer: smtp.mailer,
    database: ctx.deps.database,
    env: {
      ...PRODUCTION_PAYEE_ENV,
      SVC_ENVIRONMENT: 'production',
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      SVC_JWT_SECRET: 'test-jwt-secret-which-is-long-enough-0123456789',
      SVC_DATA_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: smtp.url,
    },
  });
  owner = await createTestClient(ctx, { role: 'owner' });
});
afterAll(async () => {
  await prod.close();
  await ctx.close();
  await smtp.close();
});

async function newCredential(app: TestContext = ctx, caller: TestCaller = owner) {
  const res = await app.app.inject({
    method: 'POST',
    url: '/api/v1/auth/api-credentials',
    headers: caller.headers,
    payload: { label: 'lockout', role: 'developer' },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { api_key: string; api_secret: string; credential_id: string };
}

const exchange = (api_key: string, api_secret: string, app: TestContext = ctx) =>
  app.app.inject({ method: 'POST', url: '/api/v1/auth/api-token', payload: { api_key, api_secret } });

function expectNoRateLimitHeaders(res: { headers: Record<string, unknown> }) {
  for (const h of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(res.headers[h]).toBeUndefined();
}

describe('API key lockout', () => {
  it('locks a key for 5 minutes after 5 failures, even for the right secret', async () => {
    const cred = await newCredential();
    for (let i = 0; i < 5; i++) {
      const res = await exchange(cred.api_key, 'sk_sandbox_wrong');
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe(M.invalidApiKey);
      expectNoRateLimitHeaders(res);
    }
    const lockedAt = ctx.clock.now();
    const locked = await exchange(cred.api_key, cred.api_secret);
    expect(locked.statusCode).toBe(429);
    expect(locked.json().detail).toBe(M.tooManyAttempts(300));
    expect(locked.headers['retry-after']).toBe('300');
    expect(locked.headers['x-ratelimit-limit']).toBe('5');
    expect(locked.headers['x-ratelimit-remaining']).toBe('0');
    expect(locked.headers['x-ratelimit-reset']).toBe(String(lockedAt.getTime() / 1000 + 300));

    ctx.clock.advanceSeconds(299);
    const still = await exchange(cred.api_key, cred.api_secret);
    expect(still.statusCode).toBe(429);
    expect(still.json().detail).toBe(M.tooManyAttempts(1));
    expect(still.headers['retry-after']).toBe('1');

    ctx.clock.advanceSeconds(1);
    const ok = await exchange(cred.api_key, cred.api_secret);
    expect(ok.statusCode).toBe(200);
    expectNoRateLimitHeaders(ok);
  });

  it('counts only this key, and a success resets the counter', async () => {
    const a = await newCredential();
    const b = await newCredential();
    for (let i = 0; i < 4; i++) expect((await exchange(a.api_key, 'wrong')).statusCode).toBe(401);
    expect((await exchange(b.api_key, b.api_secret)).statusCode).toBe(200);
    expect((await exchange(a.api_key, a.api_secret)).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) expect((await exchange(a.api_key, 'wrong')).statusCode).toBe(401);
    expect((await exchange(a.api_key, a.api_secret)).statusCode).toBe(200);
  });

  it('forgets failures after 5 quiet minutes, and counts again after a lockout ends', async () => {
    const cred = await newCredential();
    for (let i = 0; i < 4; i++) await exchange(cred.api_key, 'wrong');
    ctx.clock.advanceSeconds(301);
    for (let i = 0; i < 4; i++) expect((await exchange(cred.api_key, 'wrong')).statusCode).toBe(401);
    expect((await exchange(cred.api_key, 'wrong')).statusCode).toBe(401);
    expect((await exchange(cred.api_key, cred.api_secret)).statusCode).toBe(429);
    ctx.clock.advanceSeconds(300);
    for (let i = 0; i < 4; i++) expect((await exchange(cred.api_key, 'wrong')).statusCode).toBe(401);
    expect((await exchange(cred.api_key, cred.api_secret)).statusCode).toBe(200);
  });

  it('locks unknown keys the same way (no oracle for which keys exist)', async () => {
    const key = `pk_sandbox_${randomBytes(16).toString('hex')}`;
    for (let i = 0; i < 5; i++) expect((await exchange(key, 'x')).statusCode).toBe(401);
    expect((await exchange(key, 'x')).statusCode).toBe(429);
  });

  it('counts concurrent failures without losing any', async () => {
    const cred = await newCredential();
    const results = await Promise.all(Array.from({ length: 8 }, () => exchange(cred.api_key, 'wrong')));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 401)).toHaveLength(5);
    expect(codes.filter((c) => c === 429)).toHaveLength(3);
    ctx.clock.advanceSeconds(300);
  });

  it('keeps the counters in the database and sweeps stale ones', async () => {
    const cred = await newCredential();
    await exchange(cred.api_key, 'wrong');
    const before = await ctx.db.select().from(apiKeyLockouts);
    expect(before.length).toBeGreaterThan(0);
    ctx.clock.advanceSeconds(301);
    expect(await sweepApiKeyLockouts(ctx.deps)).toBeGreaterThan(0);
    expect(await ctx.db.select().from(apiKeyLockouts)).toEqual([]);
  });
});

describe('environments', () => {
  it('refuses the exchange on production without production access, then allows it', async () => {
    const prodOwner = await createTestClient(prod, { role: 'owner', productionAccess: true });
    const cred = await newCredential(prod, prodOwner);
    expect(cred.api_key).toMatch(/^pk_production_/);
    await prod.db
      .update(clients)
      .set({ productionAccessEnabled: false })
      .where(eq(clients.id, prodOwner.clientId));
    const denied = await exchange(cred.api_key, cred.api_secret, prod);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe(M.productionAccessDisabled);

    await prod.db
      .update(clients)
      .set({ productionAccessEnabled: true })
      .where(eq(clients.id, prodOwner.clientId));
    const ok = await exchange(cred.api_key, cred.api_secret, prod);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().environment).toBe('production');
    const token = ok.json().access_token;
    expect(decodeJwt(token).environment).toBe('production');
    const use = await prod.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(use.statusCode).toBe(200);

    // Tokens are bound to their environment: a production token on sandbox and vice versa is 401.
    const onSandbox = await ctx.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(onSandbox.statusCode).toBe(401);
    expect(onSandbox.headers['www-authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="/,
    );
    const onProd = await prod.app.inject({ url: '/api/v1/auth/client/settings', headers: owner.headers });
    expect(onProd.statusCode).toBe(401);
    expect(onProd.json().detail).toBe(M.couldNotValidate);

    // Production webhooks must be https.
    const plain = await prod.app.inject({
      method: 'PUT',
      url: '/api/v1/auth/client/settings',
      headers: { authorization: `Bearer ${token}` },
      payload: { webhook_url: 'http://hooks.example/x' },
    });
    expect(plain.statusCode).toBe(422);
    expect(plain.json().detail[0].loc).toEqual(['body', 'webhook_url']);

    // Production access switched off again: the live token is refused with 403.
    await prod.db
      .update(clients)
      .set({ productionAccessEnabled: false })
      .where(eq(clients.id, prodOwner.clientId));
    const revoked = await prod.app.inject({
      url: '/api/v1/auth/client/settings',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.statusCode).toBe(403);
    expect(revoked.json().detail).toBe(M.productionAccessDisabled);
  });
});
