import { beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/modules/auth/mfa/totp.service';
import { M } from '../../src/shared/messages';
import { get, loginOk, post, put, registerVerified, type Session } from '../helpers/auth-flow';
import { createTestClient } from '../helpers/clients';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp();
let owner: Session;
let ownerEmail: string;
beforeAll(async () => {
  const r = await registerVerified(suite.ctx, suite.smtp);
  ownerEmail = r.email;
  owner = await loginOk(suite.ctx, r.email, r.password);
});

const expect400 = async (p: Promise<{ statusCode: number; json(): { detail: unknown } }>, detail: string) => {
  const res = await p;
  expect(res.statusCode).toBe(400);
  expect(res.json().detail).toBe(detail);
};

describe('client MFA defaults', () => {
  it('owner reads and changes them; omitted fields are kept', async () => {
    const g = await get(suite.ctx, '/auth/mfa/client-defaults', owner.headers);
    expect(g.statusCode, g.body).toBe(200);
    expect(g.json()).toEqual({
      mfa_enabled: false,
      email_enabled: true,
      totp_enabled: false,
      preferred_method: 'email',
    });
    const p = await put(
      suite.ctx,
      '/auth/mfa/client-defaults',
      { mfa_enabled: true, totp_enabled: true },
      owner.headers,
    );
    expect(p.statusCode, p.body).toBe(200);
    expect(p.json()).toEqual({
      mfa_enabled: true,
      email_enabled: true,
      totp_enabled: true,
      preferred_method: 'email',
    });
    const back = await put(
      suite.ctx,
      '/auth/mfa/client-defaults',
      { mfa_enabled: false, totp_enabled: false },
      owner.headers,
    );
    expect(back.statusCode).toBe(200);
  });

  it('enforces the MFA rules', async () => {
    await expect400(
      put(
        suite.ctx,
        '/auth/mfa/client-defaults',
        { mfa_enabled: true, email_enabled: false, totp_enabled: false },
        owner.headers,
      ),
      M.mfaNeedsMethod,
    );
    await expect400(
      put(
        suite.ctx,
        '/auth/mfa/client-defaults',
        { totp_enabled: false, preferred_method: 'totp' },
        owner.headers,
      ),
      M.mfaPrimaryTotpDisabled,
    );
    const bad = await put(suite.ctx, '/auth/mfa/client-defaults', { preferred_method: 'sms' }, owner.headers);
    expect(bad.statusCode).toBe(422);
  });

  it('operations may, developer may not (403); API credential tokens are refused (403)', async () => {
    const c = await createTestClient(suite.ctx, { role: 'operations' });
    expect((await get(suite.ctx, '/auth/mfa/client-defaults', c.headers)).statusCode).toBe(200);
    expect(
      (await put(suite.ctx, '/auth/mfa/client-defaults', { mfa_enabled: false }, c.headers)).statusCode,
    ).toBe(200);
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: c.clientId });
    const denied = await put(suite.ctx, '/auth/mfa/client-defaults', { mfa_enabled: false }, dev.headers);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe(M.insufficientPermissions);
    expect((await get(suite.ctx, '/auth/mfa/client-defaults', dev.headers)).statusCode).toBe(403);
    const api = await createTestClient(suite.ctx, { role: 'owner', apiToken: true, clientId: c.clientId });
    const apiRes = await get(suite.ctx, '/auth/mfa/client-defaults', api.headers);
    expect(apiRes.statusCode).toBe(403);
    expect(apiRes.json().detail).toBe(M.dashboardTokenRequired);
    expect((await get(suite.ctx, '/auth/mfa/client-defaults')).statusCode).toBe(401);
  });
});

describe('my MFA settings and TOTP enrollment', () => {
  it('shows defaults and the effective policy', async () => {
    const res = await get(suite.ctx, '/auth/mfa/me', owner.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      mfa_use_client_default: true,
      mfa_enabled: false,
      totp_enrolled: false,
      effective: {
        source: 'client_default',
        mfa_enabled: false,
        methods: ['email'],
        preferred_method: 'email',
      },
    });
  });

  it('enforces the three rules on the account', async () => {
    await expect400(put(suite.ctx, '/auth/mfa/me', { totp_enabled: true }, owner.headers), M.totpNotEnrolled);
    await expect400(
      put(
        suite.ctx,
        '/auth/mfa/me',
        { mfa_enabled: true, email_enabled: false, totp_enabled: false },
        owner.headers,
      ),
      M.mfaNeedsMethod,
    );
    await expect400(
      put(suite.ctx, '/auth/mfa/me', { preferred_method: 'totp' }, owner.headers),
      M.mfaPrimaryTotpDisabled,
    );
    const ok = await put(
      suite.ctx,
      '/auth/mfa/me',
      { mfa_use_client_default: false, mfa_enabled: true },
      owner.headers,
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().effective).toEqual({
      source: 'account',
      mfa_enabled: true,
      methods: ['email'],
      preferred_method: 'email',
    });
    const reset = await put(
      suite.ctx,
      '/auth/mfa/me',
      { mfa_use_client_default: true, mfa_enabled: false },
      owner.headers,
    );
    expect(reset.statusCode).toBe(200);
  });

  it('enrollment: wrong code 400, expired after 10 minutes, confirm stores the secret', async () => {
    const start = await post(suite.ctx, '/auth/mfa/totp/enroll/start', undefined, { headers: owner.headers });
    expect(start.statusCode, start.body).toBe(200);
    const { secret, otpauth_uri, enrollment_token } = start.json();
    expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    expect(otpauth_uri).toContain(secret);

    const wrongCode = currentTotp(secret, new Date(suite.ctx.clock.now().getTime() + 10 * 60_000));
    await expect400(
      post(
        suite.ctx,
        '/auth/mfa/totp/enroll/confirm',
        { enrollment_token, otp_code: wrongCode },
        { headers: owner.headers },
      ),
      M.invalidAuthenticatorCode,
    );
    await expect400(
      post(
        suite.ctx,
        '/auth/mfa/totp/enroll/confirm',
        { enrollment_token: 'nope', otp_code: '123456' },
        { headers: owner.headers },
      ),
      M.totpEnrollmentInvalid,
    );
    expect(
      (
        await post(
          suite.ctx,
          '/auth/mfa/totp/enroll/confirm',
          { enrollment_token, otp_code: '12' },
          { headers: owner.headers },
        )
      ).statusCode,
    ).toBe(422);

    suite.ctx.clock.advanceSeconds(600);
    await expect400(
      post(
        suite.ctx,
        '/auth/mfa/totp/enroll/confirm',
        { enrollment_token, otp_code: currentTotp(secret, suite.ctx.clock.now()) },
        { headers: owner.headers },
      ),
      M.totpEnrollmentInvalid,
    );

    // Fresh start (the access token is still valid: 10 of 30 minutes used).
    const again = (
      await post(suite.ctx, '/auth/mfa/totp/enroll/start', undefined, { headers: owner.headers })
    ).json();
    suite.ctx.clock.advanceSeconds(30); // one step early is accepted (window of one step)
    const ok = await post(
      suite.ctx,
      '/auth/mfa/totp/enroll/confirm',
      {
        enrollment_token: again.enrollment_token,
        otp_code: currentTotp(again.secret, new Date(suite.ctx.clock.now().getTime() - 30_000)),
      },
      { headers: owner.headers },
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ totp_enrolled: true, totp_enabled: true });
    await expect400(
      post(
        suite.ctx,
        '/auth/mfa/totp/enroll/confirm',
        {
          enrollment_token: again.enrollment_token,
          otp_code: currentTotp(again.secret, suite.ctx.clock.now()),
        },
        { headers: owner.headers },
      ),
      M.totpEnrollmentInvalid,
    );
    await expect400(
      post(suite.ctx, '/auth/mfa/totp/enroll/start', undefined, { headers: owner.headers }),
      M.totpAlreadyEnrolled,
    );

    // Now TOTP may be preferred.
    const pref = await put(
      suite.ctx,
      '/auth/mfa/me',
      { mfa_use_client_default: false, mfa_enabled: true, preferred_method: 'totp' },
      owner.headers,
    );
    expect(pref.statusCode, pref.body).toBe(200);
    expect(pref.json().effective).toMatchObject({ methods: ['email', 'totp'], preferred_method: 'totp' });

    // Disable needs the DISABLE_TOTP security challenge.
    const noHeaders = await post(suite.ctx, '/auth/mfa/totp/disable', undefined, { headers: owner.headers });
    expect(noHeaders.statusCode).toBe(403);
    expect(noHeaders.json().detail).toBe(M.securityChallengeRequired);
    const ch = await post(
      suite.ctx,
      '/auth/security/request-code',
      { action: 'DISABLE_TOTP', method: 'email' },
      { headers: owner.headers },
    );
    expect(ch.statusCode, ch.body).toBe(200);
    const code = await suite.smtp.codeFor(ownerEmail);
    const dis = await post(suite.ctx, '/auth/mfa/totp/disable', undefined, {
      headers: {
        ...owner.headers,
        'x-security-token': ch.json().challenge_token,
        'x-security-code': code,
        'x-security-method': 'email',
      },
    });
    expect(dis.statusCode, dis.body).toBe(200);
    expect(dis.json()).toMatchObject({
      totp_enrolled: false,
      totp_enabled: false,
      preferred_method: 'email',
      email_enabled: true,
      effective: { methods: ['email'], preferred_method: 'email' },
    });
    await expect400(
      post(suite.ctx, '/auth/mfa/totp/disable', undefined, { headers: owner.headers }),
      M.totpNotEnabled,
    );
  });

  it('API credential tokens cannot manage MFA (403)', async () => {
    const api = await createTestClient(suite.ctx, { apiToken: true });
    const res = await get(suite.ctx, '/auth/mfa/me', api.headers);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.dashboardTokenRequired);
  });
});
