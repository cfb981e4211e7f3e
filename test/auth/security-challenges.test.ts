import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema/index';
import { currentTotp, generateTotpSecret } from '../../src/modules/auth/mfa/totp.service';
import {
  consumeSecurityChallenge,
  verifySecurityChallenge,
} from '../../src/modules/auth/security-challenges/security-challenges.service';
import { clientAuthOf } from '../../src/plugins/auth';
import { encrypt } from '../../src/shared/crypto';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';

let ctx: TestContext;
let smtp: SmtpCapture;
let owner: TestCaller;
let ownerEmail: string;

// A protected test route using the same verification the real endpoints use.
function registerProtected(app: FastifyInstance, deps: () => TestContext['deps']) {
  app.post(
    '/test/protected',
    { config: { permission: 'account.read' }, schema: { body: Type.Object({}), hide: true } },
    async (request) => {
      const auth = clientAuthOf(request);
      const d = deps();
      const id = await verifySecurityChallenge(d, request, auth, 'CHANGE_PASSWORD');
      await d.db.transaction((tx) => consumeSecurityChallenge(tx, id, d.clock.now()));
      return { ok: true };
    },
  );
}

beforeAll(async () => {
  smtp = await startSmtpCapture();
  ctx = await createTestApp({
    mailer: smtp.mailer,
    register: (app) => registerProtected(app, () => ctx.deps),
  });
  owner = await createTestClient(ctx, { role: 'owner' });
  const [a] = await ctx.db.select().from(accounts).where(eq(accounts.id, owner.accountId));
  ownerEmail = a!.email;
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const requestCode = (body: object, headers = owner.headers) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/auth/security/request-code', headers, payload: body });
const protectedCall = (h: Record<string, string>) =>
  ctx.app.inject({
    method: 'POST',
    url: '/test/protected',
    headers: { ...owner.headers, ...h },
    payload: {},
  });

describe('security challenges', () => {
  it('emails a code over SMTP and accepts it once', async () => {
    const res = await requestCode({ action: 'CHANGE_PASSWORD', method: 'email' });
    expect(res.statusCode).toBe(200);
    const { challenge_token, expires_at } = res.json();
    expect(new Date(expires_at).getTime() - ctx.clock.now().getTime()).toBe(300_000);
    const code = await smtp.codeFor(ownerEmail);
    const headers = {
      'x-security-token': challenge_token,
      'x-security-code': code,
      'x-security-method': 'email',
    };
    expect((await protectedCall(headers)).statusCode).toBe(200);
    const again = await protectedCall(headers);
    expect(again.statusCode).toBe(400);
    expect(again.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('requires the headers', async () => {
    const res = await protectedCall({});
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe(M.securityChallengeRequired);
  });

  it('is bound to the action', async () => {
    const { challenge_token } = (await requestCode({ action: 'ADD_MEMBER', method: 'email' })).json();
    const code = await smtp.codeFor(ownerEmail);
    const res = await protectedCall({
      'x-security-token': challenge_token,
      'x-security-code': code,
      'x-security-method': 'email',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('is bound to the account', async () => {
    const other = await createTestClient(ctx, { role: 'owner', clientId: owner.clientId });
    const { challenge_token } = (
      await requestCode({ action: 'CHANGE_PASSWORD', method: 'email' }, other.headers)
    ).json();
    const res = await protectedCall({
      'x-security-token': challenge_token,
      'x-security-code': '000000',
      'x-security-method': 'email',
    });
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('expires after 5 minutes', async () => {
    const { challenge_token } = (await requestCode({ action: 'CHANGE_PASSWORD', method: 'email' })).json();
    const code = await smtp.codeFor(ownerEmail);
    ctx.clock.advanceSeconds(301);
    const res = await protectedCall({
      'x-security-token': challenge_token,
      'x-security-code': code,
      'x-security-method': 'email',
    });
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('is invalidated after 5 wrong codes, even for the right one', async () => {
    const { challenge_token } = (await requestCode({ action: 'CHANGE_PASSWORD', method: 'email' })).json();
    const code = await smtp.codeFor(ownerEmail);
    const wrong = code === '111111' ? '222222' : '111111';
    for (let i = 0; i < 5; i++) {
      const r = await protectedCall({
        'x-security-token': challenge_token,
        'x-security-code': wrong,
        'x-security-method': 'email',
      });
      expect(r.json().detail).toBe(M.securityCodeInvalid);
    }
    const res = await protectedCall({
      'x-security-token': challenge_token,
      'x-security-code': code,
      'x-security-method': 'email',
    });
    expect(res.json().detail).toBe(M.securityChallengeInvalid);
  });

  it('accepts the authenticator code for the totp method, once', async () => {
    expect((await requestCode({ action: 'CHANGE_PASSWORD', method: 'totp' })).json().detail).toBe(
      M.totpNotEnabled,
    );
    const secret = generateTotpSecret();
    await ctx.db
      .update(accounts)
      .set({
        totpSecretEnc: encrypt(ctx.deps.secrets.encryptionKey, secret),
        mfaTotpEnabled: true,
        totpEnrolledAt: ctx.clock.now(),
      })
      .where(eq(accounts.id, owner.accountId));
    const { challenge_token } = (await requestCode({ action: 'CHANGE_PASSWORD', method: 'totp' })).json();
    const h = {
      'x-security-token': challenge_token,
      'x-security-code': currentTotp(secret, ctx.clock.now()),
      'x-security-method': 'totp',
    };
    expect((await protectedCall(h)).statusCode).toBe(200);
    // The same code cannot authorize a second challenge (replay).
    const second = (await requestCode({ action: 'CHANGE_PASSWORD', method: 'totp' })).json();
    const replay = await protectedCall({ ...h, 'x-security-token': second.challenge_token });
    expect(replay.json().detail).toBe(M.securityCodeInvalid);
  });

  it('answers 503 when the email cannot be sent, leaving no usable challenge', async () => {
    smtp.failNext(1);
    const res = await requestCode({ action: 'CHANGE_PASSWORD', method: 'email' });
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toBe(M.emailDeliveryFailed);
  });

  it('rejects API-credential tokens and bad bodies', async () => {
    const api = await createTestClient(ctx, { apiToken: true, clientId: owner.clientId });
    const r1 = await requestCode({ action: 'CHANGE_PASSWORD', method: 'email' }, api.headers);
    expect(r1.statusCode).toBe(403);
    expect(r1.json().detail).toBe(M.dashboardTokenRequired);
    const r2 = await requestCode({ action: 'LAUNCH_ROCKET', method: 'email' });
    expect(r2.statusCode).toBe(422);
    expect(r2.json().detail[0].loc).toEqual(['body', 'action']);
  });
});
