import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, clients } from '../../src/db/schema/index';
import { M } from '../../src/shared/messages';
import { createTestApp, PRODUCTION_PAYEE_ENV } from '../helpers/app';
import {
  expect429,
  expectNoRateLimitHeaders,
  loginOk,
  nextIp,
  post,
  registerVerified,
  uniqueEmail,
} from '../helpers/auth-flow';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();

const login = (email: string, password: string, ip = nextIp()) =>
  post(suite.ctx, '/auth/login', { client_email: email, password }, { ip });

describe('login', () => {
  it('returns bearer tokens without rate-limit headers, case-insensitive email', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    const res = await login(r.email.toUpperCase(), r.password);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer', expires_in: 1800 });
    expectNoRateLimitHeaders(res);
  });

  it('is 401 Incorrect email or password for a wrong password and for an unknown email', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    for (const res of [
      await login(r.email, 'wrong password!'),
      await login(uniqueEmail('ghost'), 'whatever1'),
    ]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe(M.incorrectLogin);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectNoRateLimitHeaders(res);
    }
  });

  it('is 401 for a deactivated client or team account', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    await suite.ctx.db.update(accounts).set({ isActive: false }).where(eq(accounts.clientId, r.clientId));
    const acc = await login(r.email, r.password);
    expect(acc.statusCode).toBe(401);
    expect(acc.json().detail).toBe(M.accountNotActive);
    await suite.ctx.db.update(accounts).set({ isActive: true }).where(eq(accounts.clientId, r.clientId));
    await suite.ctx.db.update(clients).set({ isActive: false }).where(eq(clients.id, r.clientId));
    const cli = await login(r.email, r.password);
    expect(cli.statusCode).toBe(401);
    expect(cli.json().detail).toBe(M.clientNotActive);
  });

  it('locks one email for 5 minutes after 5 failures, even for the right password', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    for (let i = 0; i < 5; i++) expect((await login(r.email, 'bad password')).statusCode).toBe(401);
    const locked = await login(r.email, r.password);
    expect429(locked, 5, 300);
    expect(locked.json().detail).toBe(M.tooManyAttempts(300));
    suite.ctx.clock.advanceSeconds(299);
    const still = await login(r.email, r.password);
    expect429(still, 5, 1);
    expect(still.json().detail).toBe(M.tooManyAttempts(1));
    suite.ctx.clock.advanceSeconds(1);
    await loginOk(suite.ctx, r.email, r.password);
  });

  it('a successful login clears the email counter', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    for (let i = 0; i < 4; i++) expect((await login(r.email, 'bad password')).statusCode).toBe(401);
    await loginOk(suite.ctx, r.email, r.password);
    for (let i = 0; i < 4; i++) expect((await login(r.email, 'bad password')).statusCode).toBe(401);
    await loginOk(suite.ctx, r.email, r.password);
  });

  it('failures older than the 15-minute window do not count', async () => {
    const r = await registerVerified(suite.ctx, suite.smtp);
    for (let i = 0; i < 4; i++) await login(r.email, 'bad password');
    suite.ctx.clock.advanceSeconds(15 * 60 + 1);
    for (let i = 0; i < 4; i++) expect((await login(r.email, 'bad password')).statusCode).toBe(401);
    await loginOk(suite.ctx, r.email, r.password);
  });

  it('unknown emails are locked the same way (no enumeration)', async () => {
    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 5; i++) expect((await login(ghost, 'bad password')).statusCode).toBe(401);
    expect429(await login(ghost, 'bad password'), 5, 300);
  });

  it('locks one IP for 60 seconds after 10 failures, across emails', async () => {
    const ip = `203.0.113.${1 + (randomBytes(1)[0]! % 200)}`;
    const r = await registerVerified(suite.ctx, suite.smtp);
    for (let i = 0; i < 10; i++) {
      expect((await login(uniqueEmail('spray'), 'bad password', ip)).statusCode).toBe(401);
    }
    const locked = await login(r.email, r.password, ip);
    expect429(locked, 10, 60);
    expect(locked.json().detail).toBe(M.tooManyAttempts(60));
    // The same account from another address is fine.
    await loginOk(suite.ctx, r.email, r.password);
    suite.ctx.clock.advanceSeconds(60);
    await loginOk(suite.ctx, r.email, r.password, ip);
  });

  it('the lock holds on a second API node sharing the database', async () => {
    const node2 = await createTestApp({ mailer: suite.smtp.mailer, database: suite.ctx.deps.database });
    try {
      node2.clock.set(suite.ctx.clock.now());
      const r = await registerVerified(suite.ctx, suite.smtp);
      for (let i = 0; i < 5; i++) await login(r.email, 'bad password');
      const res = await node2.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { client_email: r.email, password: r.password },
        remoteAddress: nextIp(),
      });
      expect(res.statusCode).toBe(429);
      expect(res.json().detail).toBe(M.tooManyAttempts(300));
    } finally {
      await node2.close();
    }
  });
});

describe('production deployment', () => {
  it('refuses login for a client without production access (403), allows it with', async () => {
    const prod = await createTestApp({
      mailer: suite.smtp.mailer,
      database: suite.ctx.deps.database,
      env: {
        ...PRODUCTION_PAYEE_ENV,
        SVC_ENVIRONMENT: 'production',
        DATABASE_URL: 'postgres://unused@127.0.0.1:5432/unused',
        SVC_JWT_SECRET: 'x'.repeat(40),
        SVC_DATA_KEY: randomBytes(32).toString('base64'),
        SMTP_URL: suite.smtp.url,
      },
    });
    try {
      prod.clock.set(suite.ctx.clock.now());
      const r = await registerVerified(suite.ctx, suite.smtp);
      const denied = await prod.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { client_email: r.email, password: r.password },
        remoteAddress: nextIp(),
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json().detail).toBe(M.productionAccessDisabled);
      await suite.ctx.db
        .update(clients)
        .set({ productionAccessEnabled: true })
        .where(eq(clients.id, r.clientId));
      const ok = await prod.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { client_email: r.email, password: r.password },
        remoteAddress: nextIp(),
      });
      expect(ok.statusCode, ok.body).toBe(200);
      const me = await prod.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${ok.json().access_token}` },
      });
      expect(me.statusCode).toBe(200);
      expect(me.json().environment).toBe('production');
      // The deployment's payment currencies (the dashboard offers them as a list), null for any.
      expect(me.json().payment_currencies).toEqual(prod.config.paymentCurrencies ?? null);
      // A production token is useless on the sandbox deployment.
      const cross = await suite.ctx.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${ok.json().access_token}` },
      });
      expect(cross.statusCode).toBe(401);
    } finally {
      await prod.close();
    }
  });
});
