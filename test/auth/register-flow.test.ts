import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, clients } from '../../src/db/schema/index';
import { setRegistrationEnabled } from '../../src/modules/admin/platform-settings.service';
import { M } from '../../src/shared/messages';
import {
  expect429,
  expectNoRateLimitHeaders,
  loginOk,
  nextIp,
  post,
  uniqueEmail,
} from '../helpers/auth-flow';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();

const body = (email: string, extra: object = {}) => ({
  email,
  password: 'correct horse battery',
  company_name: 'Acme Payments Ltd',
  full_name: 'Ada Owner',
  ...extra,
});

async function resendAndRead(email: string): Promise<string> {
  const mine = () => suite.smtp.messages.filter((m) => m.to.includes(email)).length;
  const before = mine();
  expect((await post(suite.ctx, '/auth/register/resend-verification', { email })).statusCode).toBe(200);
  await expect.poll(mine).toBe(before + 1);
  return suite.smtp.codeFor(email);
}

describe('registration', () => {
  it('creates a pending client, emails a code, blocks login until verified, then activates', async () => {
    const email = uniqueEmail();
    const res = await post(suite.ctx, '/auth/register', body(email));
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toEqual({ client_id: expect.any(String), email, status: 'pending_verification' });

    const mail = await suite.smtp.waitFor(email, /\d{6}/);
    expect(mail.subject).toMatch(/verify/i);
    const code = await suite.smtp.codeFor(email);

    const blocked = await post(
      suite.ctx,
      '/auth/login',
      { client_email: email, password: 'correct horse battery' },
      { ip: nextIp() },
    );
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().detail).toBe(M.clientNotActivated);

    const wrong = await post(suite.ctx, '/auth/register/verify-email', {
      email,
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().detail).toBe(M.verificationCodeInvalid);

    const ok = await post(suite.ctx, '/auth/register/verify-email', { email: email.toUpperCase(), code });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ verified: true });
    const [client] = await suite.ctx.db.select().from(clients).where(eq(clients.id, created.client_id));
    expect(client!.status).toBe('active');
    const [account] = await suite.ctx.db
      .select()
      .from(accounts)
      .where(eq(accounts.clientId, created.client_id));
    expect(account!.role).toBe('owner');
    expect(account!.passwordHash).toMatch(/^\$argon2id\$/);

    const again = await post(suite.ctx, '/auth/register/verify-email', { email, code });
    expect(again.statusCode).toBe(400);

    const session = await loginOk(suite.ctx, email, 'correct horse battery');
    const me = await suite.ctx.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: session.headers,
    });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().role).toBe('owner');
    expect(me.json().client.company_name).toBe('Acme Payments Ltd');
  });

  it('rejects a duplicate email (any case) with 400', async () => {
    const email = uniqueEmail();
    expect((await post(suite.ctx, '/auth/register', body(email))).statusCode).toBe(201);
    const dup = await post(suite.ctx, '/auth/register', body(email.toUpperCase()));
    expect(dup.statusCode).toBe(400);
    expect(dup.json().detail).toBe(M.accountEmailExists);
  });

  it('validates the body: short password, bad email, unknown field, blank names (422)', async () => {
    const short = await post(suite.ctx, '/auth/register', body(uniqueEmail(), { password: 'short' }));
    expect(short.statusCode).toBe(422);
    expect(short.json().detail[0].loc).toEqual(['body', 'password']);
    expect((await post(suite.ctx, '/auth/register', body('not-an-email'))).statusCode).toBe(422);
    expect((await post(suite.ctx, '/auth/register', body(uniqueEmail(), { role: 'owner' }))).statusCode).toBe(
      422,
    );
    const blank = await post(suite.ctx, '/auth/register', body(uniqueEmail(), { company_name: '   ' }));
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['body', 'company_name']);
  });

  it('is 403 when registration is disabled', async () => {
    await setRegistrationEnabled(suite.ctx.db, false);
    try {
      const res = await post(suite.ctx, '/auth/register', body(uniqueEmail()));
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(M.registrationDisabled);
    } finally {
      await setRegistrationEnabled(suite.ctx.db, null);
    }
    expect((await post(suite.ctx, '/auth/register', body(uniqueEmail()))).statusCode).toBe(201);
  });

  it('expires the code after 24 hours; a resent code works and replaces the old one', async () => {
    const email = uniqueEmail();
    await post(suite.ctx, '/auth/register', body(email));
    const first = await suite.smtp.codeFor(email);
    suite.ctx.clock.advanceSeconds(24 * 3600);
    const expired = await post(suite.ctx, '/auth/register/verify-email', { email, code: first });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().detail).toBe(M.verificationCodeInvalid);

    const before = suite.smtp.messages.length;
    const resend = await post(suite.ctx, '/auth/register/resend-verification', { email });
    expect(resend.statusCode, resend.body).toBe(200);
    expect(resend.json()).toEqual({ sent: true });
    expectNoRateLimitHeaders(resend);
    await suite.smtp.waitFor(email, /\d{6}/);
    await expect.poll(() => suite.smtp.messages.length).toBe(before + 1);
    const second = await suite.smtp.codeFor(email);
    if (second !== first) {
      expect((await post(suite.ctx, '/auth/register/verify-email', { email, code: first })).statusCode).toBe(
        400,
      );
    }
    suite.ctx.clock.advanceSeconds(24 * 3600 - 1);
    expect((await post(suite.ctx, '/auth/register/verify-email', { email, code: second })).statusCode).toBe(
      200,
    );
  });

  it('kills the code after 5 wrong attempts', async () => {
    const email = uniqueEmail();
    await post(suite.ctx, '/auth/register', body(email));
    const code = await suite.smtp.codeFor(email);
    const wrong = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++) {
      expect((await post(suite.ctx, '/auth/register/verify-email', { email, code: wrong })).statusCode).toBe(
        400,
      );
    }
    const dead = await post(suite.ctx, '/auth/register/verify-email', { email, code });
    expect(dead.statusCode).toBe(400);
    expect(dead.json().detail).toBe(M.verificationCodeInvalid);
  });

  it('caps guessing across resends: 10 wrong codes in an hour lock verification for an hour', async () => {
    const email = uniqueEmail();
    await post(suite.ctx, '/auth/register', body(email));
    let code = await suite.smtp.codeFor(email);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5; i++) {
        const res = await post(suite.ctx, '/auth/register/verify-email', {
          email,
          code: code === '123456' ? '654321' : '123456',
        });
        expect(res.statusCode).toBe(400);
      }
      suite.ctx.clock.advanceSeconds(61);
      code = await resendAndRead(email);
    }
    // The 10th failure (at +61 s) set the lock; we are at +122 s.
    const locked = await post(suite.ctx, '/auth/register/verify-email', { email, code });
    expect429(locked, 10, 3600 - 61);
    expect(locked.json().detail).toBe(M.tooManyAttempts(3600 - 61));
    suite.ctx.clock.advanceSeconds(3600);
    const fresh = await resendAndRead(email);
    expect((await post(suite.ctx, '/auth/register/verify-email', { email, code: fresh })).statusCode).toBe(
      200,
    );
  });

  it('applies a 60 s resend cooldown (also right after registering), the same for unknown emails', async () => {
    const email = uniqueEmail();
    await post(suite.ctx, '/auth/register', body(email));
    suite.ctx.clock.advanceSeconds(20);
    const early = await post(suite.ctx, '/auth/register/resend-verification', { email });
    expect429(early, 1, 40);
    expect(early.json().detail).toBe(M.codeResendTooSoon(40));
    suite.ctx.clock.advanceSeconds(40);
    expect((await post(suite.ctx, '/auth/register/resend-verification', { email })).statusCode).toBe(200);

    const unknown = uniqueEmail('nobody');
    const sentBefore = suite.smtp.messages.length;
    const a = await post(suite.ctx, '/auth/register/resend-verification', { email: unknown });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toEqual({ sent: true });
    expect429(await post(suite.ctx, '/auth/register/resend-verification', { email: unknown }), 1, 60);
    expect(suite.smtp.messages.filter((m) => m.to.includes(unknown))).toHaveLength(0);
    expect(suite.smtp.messages.length).toBe(sentBefore);
  });

  it('a verified account gets 200 on resend but no email', async () => {
    const email = uniqueEmail();
    await post(suite.ctx, '/auth/register', body(email));
    await post(suite.ctx, '/auth/register/verify-email', { email, code: await suite.smtp.codeFor(email) });
    suite.ctx.clock.advanceSeconds(61);
    const count = suite.smtp.messages.length;
    expect((await post(suite.ctx, '/auth/register/resend-verification', { email })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(suite.smtp.messages.length).toBe(count);
  });

  it('rolls the registration back with 503 when the email cannot be delivered', async () => {
    const email = uniqueEmail();
    suite.smtp.failNext(1);
    const res = await post(suite.ctx, '/auth/register', body(email));
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toBe(M.emailDeliveryFailed);
    const left = await suite.ctx.db
      .select()
      .from(accounts)
      .where(eq(sql`lower(${accounts.email})`, email));
    expect(left).toHaveLength(0);
    const retry = await post(suite.ctx, '/auth/register', body(email));
    expect(retry.statusCode, retry.body).toBe(201);
  });
});
