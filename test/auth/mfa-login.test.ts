import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { accounts, clients } from '../../src/db/schema/index';
import { currentTotp } from '../../src/modules/auth/mfa/totp.service';
import { M } from '../../src/shared/messages';
import {
  bearer,
  expect429,
  expectNoRateLimitHeaders,
  get,
  loginOk,
  nextIp,
  post,
  put,
  type Registered,
  registerVerified,
} from '../helpers/auth-flow';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();

const login = (u: Registered) =>
  post(suite.ctx, '/auth/login', { client_email: u.email, password: u.password }, { ip: nextIp() });
const verify = (challenge_token: string, otp_code: string, method: 'email' | 'totp') =>
  post(suite.ctx, '/auth/login/verify-otp', { challenge_token, otp_code, method });
const sendEmailCode = (challenge_token: string) =>
  post(suite.ctx, '/auth/login/challenge/send-email-code', { challenge_token });
const otherThan = (code: string) => (code === '000000' ? '111111' : '000000');

/** A verified user with account-level email MFA switched on. */
async function emailMfaUser(): Promise<Registered> {
  const u = await registerVerified(suite.ctx, suite.smtp);
  const s = await loginOk(suite.ctx, u.email, u.password);
  const res = await put(
    suite.ctx,
    '/auth/mfa/me',
    { mfa_use_client_default: false, mfa_enabled: true },
    s.headers,
  );
  expect(res.statusCode, res.body).toBe(200);
  return u;
}

/** A verified user with an enrolled authenticator, TOTP preferred. */
async function totpUser(): Promise<Registered & { secret: string }> {
  const u = await registerVerified(suite.ctx, suite.smtp);
  const s = await loginOk(suite.ctx, u.email, u.password);
  const start = (
    await post(suite.ctx, '/auth/mfa/totp/enroll/start', undefined, { headers: s.headers })
  ).json();
  const ok = await post(
    suite.ctx,
    '/auth/mfa/totp/enroll/confirm',
    { enrollment_token: start.enrollment_token, otp_code: currentTotp(start.secret, suite.ctx.clock.now()) },
    { headers: s.headers },
  );
  expect(ok.statusCode, ok.body).toBe(200);
  const p = await put(
    suite.ctx,
    '/auth/mfa/me',
    { mfa_use_client_default: false, mfa_enabled: true, preferred_method: 'totp' },
    s.headers,
  );
  expect(p.statusCode, p.body).toBe(200);
  suite.ctx.clock.advanceSeconds(30); // the enrollment code's time step is spent
  return { ...u, secret: start.secret };
}

describe('login with email OTP', () => {
  it('returns the otp_pending challenge and emails a code that completes the login', async () => {
    const u = await emailMfaUser();
    const before = suite.smtp.messages.filter((m) => m.to.includes(u.email)).length;
    const res = await login(u);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      token_type: 'otp_pending',
      requires_mfa: true,
      allowed_mfa_methods: ['email'],
      preferred_mfa_method: 'email',
    });
    expect(body.access_token).toBeUndefined();
    expectNoRateLimitHeaders(res);
    await expect
      .poll(() => suite.smtp.messages.filter((m) => m.to.includes(u.email)).length)
      .toBe(before + 1);
    const code = await suite.smtp.codeFor(u.email);

    const done = await verify(body.challenge_token, code, 'email');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ token_type: 'bearer', expires_in: 1800 });
    expect((await get(suite.ctx, '/auth/me', bearer(done.json().access_token))).statusCode).toBe(200);
    expect(
      (await post(suite.ctx, '/auth/refresh', { refresh_token: done.json().refresh_token })).statusCode,
    ).toBe(200);

    // The challenge is single-use.
    const again = await verify(body.challenge_token, code, 'email');
    expect(again.statusCode).toBe(401);
    expect(again.json().detail).toBe(M.invalidOtpChallenge);
  });

  it('client defaults apply to accounts that use them', async () => {
    const u = await registerVerified(suite.ctx, suite.smtp);
    await suite.ctx.db.update(clients).set({ mfaEnabled: true }).where(eq(clients.id, u.clientId));
    const res = await login(u);
    expect(res.json().token_type).toBe('otp_pending');
    // An account override switches it off again.
    await suite.ctx.db
      .update(accounts)
      .set({ mfaUseClientDefault: false })
      .where(eq(accounts.clientId, u.clientId));
    expect((await login(u)).json().token_type).toBe('bearer');
  });

  it('a wrong code is 401 and counts; the fifth kills the challenge', async () => {
    const u = await emailMfaUser();
    const ch = (await login(u)).json().challenge_token;
    const code = await suite.smtp.codeFor(u.email);
    for (let i = 0; i < 5; i++) {
      const res = await verify(ch, otherThan(code), 'email');
      expect(res.statusCode).toBe(401);
      expect(res.json().detail).toBe(M.invalidOtpCode);
    }
    const dead = await verify(ch, code, 'email');
    expect(dead.statusCode).toBe(401);
    expect(dead.json().detail).toBe(M.invalidOtpChallenge);
  });

  it('wrong codes count per account across fresh challenges: 429 lockout for 5 minutes', async () => {
    const u = await emailMfaUser();
    // 3 wrong codes on one challenge, then a new login (a correct password) for a fresh one.
    let ch = (await login(u)).json().challenge_token;
    let code = await suite.smtp.codeFor(u.email);
    for (let i = 0; i < 3; i++) expect((await verify(ch, otherThan(code), 'email')).statusCode).toBe(401);
    ch = (await login(u)).json().challenge_token;
    code = await suite.smtp.codeFor(u.email);
    for (let i = 0; i < 2; i++) expect((await verify(ch, otherThan(code), 'email')).statusCode).toBe(401);
    // The fifth wrong code for the account locked verify-otp, even with the right code on a live challenge.
    const locked = await verify(ch, code, 'email');
    expect429(locked, 5, 300);
    expect(locked.json().detail).toBe(M.tooManyAttempts(300));
    suite.ctx.clock.advanceSeconds(120);
    expect429(await verify(ch, code, 'email'), 5, 180);
    suite.ctx.clock.advanceSeconds(180);
    // The lock is over: a fresh challenge completes, and the count starts again.
    ch = (await login(u)).json().challenge_token;
    code = await suite.smtp.codeFor(u.email);
    const ok = await verify(ch, code, 'email');
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('the challenge expires after 5 minutes', async () => {
    const u = await emailMfaUser();
    const ch = (await login(u)).json().challenge_token;
    const code = await suite.smtp.codeFor(u.email);
    suite.ctx.clock.advanceSeconds(300);
    const res = await verify(ch, code, 'email');
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.invalidOtpChallenge);
    expect((await sendEmailCode(ch)).statusCode).toBe(401);
    expect((await verify('garbage', '123456', 'email')).statusCode).toBe(401);
  });

  it('resending the email code has a 60 s cooldown and replaces the code', async () => {
    const u = await emailMfaUser();
    const ch = (await login(u)).json().challenge_token;
    const first = await suite.smtp.codeFor(u.email);
    suite.ctx.clock.advanceSeconds(10);
    const early = await sendEmailCode(ch);
    expect429(early, 1, 50);
    expect(early.json().detail).toBe(M.codeResendTooSoon(50));
    suite.ctx.clock.advanceSeconds(50);
    const count = suite.smtp.messages.length;
    const ok = await sendEmailCode(ch);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ sent: true });
    await expect.poll(() => suite.smtp.messages.length).toBe(count + 1);
    const second = await suite.smtp.codeFor(u.email);
    if (second !== first) expect((await verify(ch, first, 'email')).statusCode).toBe(401);
    expect((await verify(ch, second, 'email')).statusCode).toBe(200);
  });

  it('503 when the login code cannot be emailed', async () => {
    const u = await emailMfaUser();
    suite.smtp.failNext(1);
    const res = await login(u);
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toBe(M.emailDeliveryFailed);
  });
});

describe('login with TOTP', () => {
  it('no email at login; the authenticator code completes it once (no replay)', async () => {
    const u = await totpUser();
    const count = suite.smtp.messages.length;
    const res = await login(u);
    expect(res.json()).toMatchObject({
      token_type: 'otp_pending',
      allowed_mfa_methods: ['email', 'totp'],
      preferred_mfa_method: 'totp',
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(suite.smtp.messages.length).toBe(count);
    const code = currentTotp(u.secret, suite.ctx.clock.now());
    const ok = await verify(res.json().challenge_token, code, 'totp');
    expect(ok.statusCode, ok.body).toBe(200);

    const second = (await login(u)).json().challenge_token;
    const replay = await verify(second, code, 'totp');
    expect(replay.statusCode).toBe(401);
    expect(replay.json().detail).toBe(M.invalidOtpCode);
    suite.ctx.clock.advanceSeconds(30);
    expect((await verify(second, currentTotp(u.secret, suite.ctx.clock.now()), 'totp')).statusCode).toBe(200);
  });

  it('method email before any email code was sent is 400; the fallback emails one', async () => {
    const u = await totpUser();
    const ch = (await login(u)).json().challenge_token;
    const early = await verify(ch, '123456', 'email');
    expect(early.statusCode).toBe(400);
    expect(early.json().detail).toBe(M.emailCodeNotSent);
    const sent = await sendEmailCode(ch);
    expect(sent.statusCode, sent.body).toBe(200);
    const code = await suite.smtp.codeFor(u.email);
    expect((await verify(ch, code, 'email')).statusCode).toBe(200);
  });

  it('method totp for an account without an authenticator is 400', async () => {
    const u = await emailMfaUser();
    const ch = (await login(u)).json().challenge_token;
    const res = await verify(ch, '123456', 'totp');
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.mfaMethodNotAllowed);
  });

  it('an account that switched email codes off gets no email fallback', async () => {
    const u = await totpUser();
    const s = await post(
      suite.ctx,
      '/auth/login',
      { client_email: u.email, password: u.password },
      { ip: nextIp() },
    );
    const done = await verify(s.json().challenge_token, currentTotp(u.secret, suite.ctx.clock.now()), 'totp');
    expect(done.statusCode, done.body).toBe(200);
    const off = await put(
      suite.ctx,
      '/auth/mfa/me',
      { email_enabled: false },
      bearer(done.json().access_token),
    );
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().effective.methods).toEqual(['totp']);
    suite.ctx.clock.advanceSeconds(30);
    const res = await login(u);
    expect(res.json()).toMatchObject({ allowed_mfa_methods: ['totp'], preferred_mfa_method: 'totp' });
    const fallback = await sendEmailCode(res.json().challenge_token);
    expect(fallback.statusCode).toBe(400);
    expect(fallback.json().detail).toBe(M.mfaMethodNotAllowed);
    expect((await verify(res.json().challenge_token, '123456', 'email')).json().detail).toBe(
      M.mfaMethodNotAllowed,
    );
  });

  it('a deactivated account cannot complete the challenge', async () => {
    const u = await totpUser();
    const ch = (await login(u)).json().challenge_token;
    await suite.ctx.db.update(accounts).set({ isActive: false }).where(eq(accounts.clientId, u.clientId));
    const res = await verify(ch, currentTotp(u.secret, suite.ctx.clock.now()), 'totp');
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(M.accountNotActive);
  });
});
