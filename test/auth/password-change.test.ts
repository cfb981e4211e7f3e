import { describe, expect, it } from 'vitest';
import { M } from '../../src/shared/messages';
import { bearer, get, loginOk, nextIp, post, registerVerified, type Session } from '../helpers/auth-flow';
import { createTestClient } from '../helpers/clients';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();

const URL = '/auth/team/accounts/me/change-password';

async function challenge(s: Session, email: string) {
  const res = await post(
    suite.ctx,
    '/auth/security/request-code',
    { action: 'CHANGE_PASSWORD', method: 'email' },
    { headers: s.headers },
  );
  expect(res.statusCode, res.body).toBe(200);
  const code = await suite.smtp.codeFor(email);
  return {
    ...s.headers,
    'x-security-token': res.json().challenge_token,
    'x-security-code': code,
    'x-security-method': 'email',
  };
}

describe('change password', () => {
  it('needs the CHANGE_PASSWORD security challenge', async () => {
    const u = await registerVerified(suite.ctx, suite.smtp);
    const s = await loginOk(suite.ctx, u.email, u.password);
    const res = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: 'another long one' },
      { headers: s.headers },
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.securityChallengeRequired);
    // A challenge for another action does not fit.
    const other = await post(
      suite.ctx,
      '/auth/security/request-code',
      { action: 'DISABLE_TOTP', method: 'email' },
      { headers: s.headers },
    );
    const code = await suite.smtp.codeFor(u.email);
    const wrongAction = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: 'another long one' },
      {
        headers: {
          ...s.headers,
          'x-security-token': other.json().challenge_token,
          'x-security-code': code,
          'x-security-method': 'email',
        },
      },
    );
    expect(wrongAction.statusCode).toBe(400);
    expect(wrongAction.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('checks the current password, the difference and the length', async () => {
    const u = await registerVerified(suite.ctx, suite.smtp);
    const s = await loginOk(suite.ctx, u.email, u.password);
    const headers = await challenge(s, u.email);
    const wrong = await post(
      suite.ctx,
      URL,
      { current_password: 'not my password', new_password: 'another long one' },
      { headers },
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().detail).toBe(M.currentPasswordIncorrect);
    const same = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: u.password },
      { headers },
    );
    expect(same.statusCode).toBe(400);
    expect(same.json().detail).toBe(M.passwordMustDiffer);
    const short = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: 'short' },
      { headers },
    );
    expect(short.statusCode).toBe(422);
    expect(short.json().detail[0].loc).toEqual(['body', 'new_password']);
    // The challenge survived these (one failed attempt counted) and still works.
    const ok = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: 'another long one' },
      { headers },
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().password_changed).toBe(true);
  });

  it('five wrong current passwords burn the challenge', async () => {
    const u = await registerVerified(suite.ctx, suite.smtp);
    const s = await loginOk(suite.ctx, u.email, u.password);
    const headers = await challenge(s, u.email);
    for (let i = 0; i < 5; i++) {
      const res = await post(
        suite.ctx,
        URL,
        { current_password: `guess ${i} password`, new_password: 'another long one' },
        { headers },
      );
      expect(res.statusCode).toBe(400);
    }
    const dead = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: 'another long one' },
      { headers },
    );
    expect(dead.statusCode).toBe(400);
    expect(dead.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('changes the password and signs out every other session', async () => {
    const u = await registerVerified(suite.ctx, suite.smtp);
    const current = await loginOk(suite.ctx, u.email, u.password);
    const other = await loginOk(suite.ctx, u.email, u.password);
    const headers = await challenge(current, u.email);
    const res = await post(
      suite.ctx,
      URL,
      { current_password: u.password, new_password: 'a brand new secret' },
      { headers },
    );
    expect(res.statusCode, res.body).toBe(200);

    const old = await post(
      suite.ctx,
      '/auth/login',
      { client_email: u.email, password: u.password },
      { ip: nextIp() },
    );
    expect(old.statusCode).toBe(401);
    expect(old.json().detail).toBe(M.incorrectLogin);
    await loginOk(suite.ctx, u.email, 'a brand new secret');

    const otherMe = await get(suite.ctx, '/auth/me', other.headers);
    expect(otherMe.statusCode).toBe(401);
    expect(otherMe.json().detail).toBe(M.tokenRevoked);
    expect((await post(suite.ctx, '/auth/refresh', { refresh_token: other.refresh_token })).statusCode).toBe(
      400,
    );

    expect((await get(suite.ctx, '/auth/me', current.headers)).statusCode).toBe(200);
    const rotated = await post(suite.ctx, '/auth/refresh', { refresh_token: current.refresh_token });
    expect(rotated.statusCode).toBe(200);
    expect((await get(suite.ctx, '/auth/me', bearer(rotated.json().access_token))).statusCode).toBe(200);

    // The used challenge cannot be replayed.
    const replay = await post(
      suite.ctx,
      URL,
      { current_password: 'a brand new secret', new_password: 'yet another secret' },
      { headers },
    );
    expect(replay.statusCode).toBe(400);
  });

  it('is refused for API credential tokens (403)', async () => {
    const api = await createTestClient(suite.ctx, { apiToken: true });
    const res = await post(
      suite.ctx,
      URL,
      { current_password: 'x', new_password: 'another long one' },
      { headers: api.headers },
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.dashboardTokenRequired);
  });
});
