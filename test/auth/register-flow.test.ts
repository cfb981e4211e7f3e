import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, clients } from '../../src/db/schema/index';
import { setRegistrationEnabled } from '../../src/modules/admin/platform-settings.service';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import {
  expect429,
  expectNoRateLimitHeaders,
  loginOk,
  nextIp,
  post,
  uniqueEmail,
} from '../helpers/auth-flow';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';

let ctx: TestContext;
let smtp: SmtpCapture;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  ctx = await createTestApp({ mailer: smtp.mailer });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const body = (email: string, extra: object = {}) => ({
  email,
  password: 'correct horse battery',
  company_name: 'Acme Payments Ltd',
  full_name: 'Ada Owner',
  ...extra,
});

async function resendAndRead(email: string): Promise<string> {
  const mine = () => smtp.messages.filter((m) => m.to.includes(email)).length;
  const before = mine();
  expect((await post(ctx, '/auth/register/resend-verification', { email })).statusCode).toBe(200);
  await expect.poll(mine).toBe(before + 1);
  return smtp.codeFor(email);
}

describe('registration', () => {
  it('creates a pending client, emails a code, blocks login until verified, then activates', async () => {
    const email = uniqueEmail();
    const res = await post(ctx, '/auth/register', body(email));
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toEqual({ client_id: expect.any(String), email, status: 'pending_verification' });

    const mail = await smtp.waitFor(email, /\d{6}/);
    expect(mail.subject).toMatch(/verify/i);
    const code = await smtp.codeFor(email);

    const blocked = await post(
      ctx,
      '/auth/login',
      { client_email: email, password: 'correct horse battery' },
      { ip: nextIp() },
    );
    expect(blocked.statusCode).toBe(403);
    expect(blocked.json().detail).toBe(M.clientNotActivated);

    const wrong = await post(ctx, '/auth/register/verify-email', {
      email,
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().detail).toBe(M.verificationCodeInvalid);

    const ok = await post(ctx, '/auth/register/verify-email', { email: email.toUpperCase(), code });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ verified: true });
    const [client] = await ctx.db.select().from(clients).where(eq(clients.id, created.client_id));
    expect(client!.status).toBe('active');
    const [account] = await ctx.db.select().from(accounts).where(eq(accounts.clientId, created.client_id));
    expect(account!.role).toBe('owner');
    expect(account!.passwordHash).toMatch(/^\$argon2id\$/);

    const again = await post(ctx, '/auth/register/verify-email', { email, code });
    expect(again.statusCode).toBe(400);

    const session = await loginOk(ctx, email, 'correct horse battery');
    const me = await ctx.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: session.headers });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().role).toBe('owner');
    expect(me.json().client.company_name).toBe('Acme Payments Ltd');
  });

  it('rejects a duplicate email (any case) with 400', async () => {
    const email = uniqueEmail();
    expect((await post(ctx, '/auth/register', body(email))).statusCode).toBe(201);
    const dup = await post(ctx, '/auth/register', body(email.toUpperCase()));
    expect(dup.statusCode).toBe(400);
    expect(dup.json().detail).toBe(M.accountEmailExists);
  });

  it('validates the body: short password, bad email, unknown field, blank names (422)', async () => {
    const short = await post(ctx, '/auth/register', body(uniqueEmail(), { password: 'short' }));
    expect(short.statusCode).toBe(422);
    expect(short.json().detail[0].loc).toEqual(['body', 'password']);
    expect((await post(ctx, '/auth/register', body('not-an-email'))).statusCode).toBe(422);
    expect((await post(ctx, '/auth/register', body(uniqueEmail(), { role: 'owner' }))).statusCode).toBe(422);
    const blank = await post(ctx, '/auth/register', body(uniqueEmail(), { company_name: '   ' }));
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['body', 'company_name']);
  });

  it('is 403 when registration is disabled', async () => {
    await setRegistrationEnabled(ctx.db, false);
    try {
      const res = await post(ctx, '/auth/register', body(uniqueEmail()));
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(M.registrationDisabled);
    } finally {
      await setRegistrationEnabled(ctx.db, null);
    }
    expect((await post(ctx, '/auth/register', body(uniqueEmail()))).statusCode).toBe(201);
  });

  it('expires the code after 24 hours; a resent code works and replaces the old one', async () => {
    const email = uniqueEmail();
    await post(ctx, '/auth/register', body(email));
    const first = await smtp.codeFor(email);
    ctx.clock.advanceSeconds(24 * 3600);
    const expired = await post(ctx, '/auth/register/verify-email', { email, code: first });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().detail).toBe(M.verificationCodeInvalid);

    const before = smtp.messages.length;
    const resend = await post(ctx, '/auth/register/resend-verification', { email });
    expect(resend.statusCode, resend.body).toBe(200);
    expect(resend.json()).toEqual({ sent: true });
    expectNoRateLimitHeaders(resend);
    await smtp.waitFor(email, /\d{6}/);
    await expect.poll(() => smtp.messages.length).toBe(before + 1);
    const second = await smtp.codeFor(email);
    if (second !== first) {
      expect((await post(ctx, '/auth/register/verify-email', { email, code: first })).statusCode).toBe(400);
    }
    ctx.clock.advanceSeconds(24 * 3600 - 1);
    expect((await post(ctx, '/auth/register/verify-email', { email, code: second })).statusCode).toBe(200);
  });

  it('kills the code after 5 wrong attempts', async () => {
    const email = uniqueEmail();
    await post(ctx, '/auth/register', body(email));
    const code = await smtp.codeFor(email);
    const wrong = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++) {
      expect((await post(ctx, '/auth/register/verify-email', { email, code: wrong })).statusCode).toBe(400);
    }
    const dead = await post(ctx, '/auth/register/verify-email', { email, code });
    expect(dead.statusCode).toBe(400);
    expect(dead.json().detail).toBe(M.verificationCodeInvalid);
  });

  it('caps guessing across resends: 10 wrong codes in an hour lock verification for an hour', async () => {
    const email = uniqueEmail();
    await post(ctx, '/auth/register', body(email));
    let code = await smtp.codeFor(email);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5; i++) {
        const res = await post(ctx, '/auth/register/verify-email', {
          email,
          code: code === '123456' ? '654321' : '123456',
        });
        expect(res.statusCode).toBe(400);
      }
      ctx.clock.advanceSeconds(61);
      code = await resendAndRead(email);
    }
    // The 10th failure (at +61 s) set the lock; we are at +122 s.
    const locked = await post(ctx, '/auth/register/verify-email', { email, code });
    expect429(locked, 10, 3600 - 61);
    expect(locked.json().detail).toBe(M.tooManyAttempts(3600 - 61));
    ctx.clock.advanceSeconds(3600);
    const fresh = await resendAndRead(email);
    expect((await post(ctx, '/auth/register/verify-email', { email, code: fresh })).statusCode).toBe(200);
  });

  it('applies a 60 s resend cooldown (also right after registering), the same for unknown emails', async () => {
    const email = uniqueEmail();
    await post(ctx, '/auth/register', body(email));
    ctx.clock.advanceSeconds(20);
    const early = await post(ctx, '/auth/register/resend-verification', { email });
    expect429(early, 1, 40);
    expect(early.json().detail).toBe(M.codeResendTooSoon(40));
    ctx.clock.advanceSeconds(40);
    expect((await post(ctx, '/auth/register/resend-verification', { email })).statusCode).toBe(200);

    const unknown = uniqueEmail('nobody');
    const sentBefore = smtp.messages.length;
    const a = await post(ctx, '/auth/register/resend-verification', { email: unknown });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toEqual({ sent: true });
    expect429(await post(ctx, '/auth/register/resend-verification', { email: unknown }), 1, 60);
    expect(smtp.messages.filter((m) => m.to.includes(unknown))).toHaveLength(0);
    expect(smtp.messages.length).toBe(sentBefore);
  });

  it('a verified account gets 200 on resend but no email', async () => {
    const email = uniqueEmail();
    await post(ctx, '/auth/register', body(email));
    await post(ctx, '/auth/register/verify-email', { email, code: await smtp.codeFor(email) });
    ctx.clock.advanceSeconds(61);
    const count = smtp.messages.length;
    expect((await post(ctx, '/auth/register/resend-verification', { email })).statusCode).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(smtp.messages.length).toBe(count);
  });

  it('rolls the registration back with 503 when the email cannot be delivered', async () => {
    const email = uniqueEmail();
    smtp.failNext(1);
    const res = await post(ctx, '/auth/register', body(email));
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toBe(M.emailDeliveryFailed);
    const left = await ctx.db
      .select()
      .from(accounts)
      .where(eq(sql`lower(${accounts.email})`, email));
    expect(left).toHaveLength(0);
    const retry = await post(ctx, '/auth/register', body(email));
    expect(retry.statusCode, retry.body).toBe(201);
  });
});
