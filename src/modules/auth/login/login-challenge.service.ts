/**
 * Completing an `otp_pending` login: verify-otp (5 minutes, 5 attempts, then the challenge is dead)
 * and the email fallback (a new code at most every 60 seconds). Wrong codes also count per account
 * across challenges (the login email rule: 5 within 15 minutes lock verify-otp for 5 minutes, 429),
 * so logging in again for a fresh challenge does not buy more guesses; a correct password does not
 * clear it, a completed MFA login does.
 */

import { and, eq, isNull, sql } from 'drizzle-orm';
import { accounts, clients, loginChallenges } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { addSeconds, secondsUntil } from '../../../shared/clock';
import { decrypt, keyedHash, safeEqual } from '../../../shared/crypto';
import { badRequest, tooManyRequests, unauthorized } from '../../../shared/errors';
import { randomDigits } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { recordActivity } from '../../activity/activity-writer.service';
import { sendAuthMail } from '../auth-mail.service';
import type { MfaMethod } from '../mfa/mfa.policy';
import { verifyTotp } from '../mfa/totp.service';
import { assertCanSignIn, startSession, type TokenPair } from '../sessions/sessions.service';
import { EMAIL_OTP_COOLDOWN_SECONDS, LOGIN_CHALLENGE_MAX_ATTEMPTS, otpMail } from './login.service';
import {
  clearThrottle,
  findActiveLock,
  LOGIN_EMAIL_RULE,
  lockedError,
  recordFailure,
} from './throttle.service';

type ChallengeRow = typeof loginChallenges.$inferSelect;

async function liveChallenge(deps: Deps, token: string, now: Date): Promise<ChallengeRow> {
  const [ch] = await deps.db
    .select()
    .from(loginChallenges)
    .where(eq(loginChallenges.tokenHash, keyedHash(deps.secrets.hashKey, token)));
  if (
    !ch ||
    ch.consumedAt ||
    ch.invalidatedAt ||
    ch.expiresAt <= now ||
    ch.attempts >= LOGIN_CHALLENGE_MAX_ATTEMPTS
  ) {
    throw unauthorized(M.invalidOtpChallenge);
  }
  return ch;
}

const otpFailuresKey = (accountId: string) => `login-otp:${accountId}`;

/** Counts a wrong code in its own statement (the fifth kills the challenge) and for the account. */
async function recordWrongCode(deps: Deps, ch: ChallengeRow, now: Date): Promise<never> {
  await recordFailure(deps.db, otpFailuresKey(ch.accountId), LOGIN_EMAIL_RULE, now);
  await deps.db
    .update(loginChallenges)
    .set({
      attempts: sql`${loginChallenges.attempts} + 1`,
      invalidatedAt: sql`case when ${loginChallenges.attempts} + 1 >= ${LOGIN_CHALLENGE_MAX_ATTEMPTS} then ${now}::timestamptz else null end`,
    })
    .where(eq(loginChallenges.id, ch.id));
  await recordActivity(deps.db, {
    clientId: ch.clientId,
    action: 'login.failed',
    outcome: 'failure',
    at: now,
    actor: { type: 'client_user', accountId: ch.accountId, credentialId: null },
    target: { type: 'account', id: ch.accountId, label: null },
    metadata: { reason: 'wrong MFA code', attempts: ch.attempts + 1 },
  });
  throw unauthorized(M.invalidOtpCode);
}

export async function verifyLoginOtp(
  deps: Deps,
  input: { challenge_token: string; otp_code: string; method: MfaMethod },
): Promise<TokenPair> {
  const now = deps.clock.now();
  const ch = await liveChallenge(deps, input.challenge_token, now);
  const [row] = await deps.db
    .select({ account: accounts, client: clients })
    .from(accounts)
    .innerJoin(clients, eq(clients.id, accounts.clientId))
    .where(eq(accounts.id, ch.accountId));
  if (!row) throw unauthorized(M.invalidOtpChallenge);
  const lock = await findActiveLock(deps.db, [otpFailuresKey(ch.accountId)], now);
  if (lock) throw lockedError(lock, now, LOGIN_EMAIL_RULE.limit, M.tooManyAttempts);
  const code = input.otp_code.trim();

  if (!ch.allowedMethods.includes(input.method)) throw badRequest(M.mfaMethodNotAllowed);
  if (input.method === 'email') {
    if (!ch.emailCodeHash) throw badRequest(M.emailCodeNotSent);
    if (!safeEqual(ch.emailCodeHash, keyedHash(deps.secrets.hashKey, code)))
      await recordWrongCode(deps, ch, now);
  } else {
    if (!ch.allowedMethods.includes('totp') || !row.account.totpSecretEnc)
      throw badRequest(M.mfaMethodNotAllowed);
    const step = verifyTotp(decrypt(deps.secrets.encryptionKey, row.account.totpSecretEnc), code, now);
    // Each TOTP code is accepted once: its time step must be newer than the last accepted one.
    const fresh =
      step !== null &&
      (
        await deps.db
          .update(accounts)
          .set({ totpLastStep: step })
          .where(and(eq(accounts.id, row.account.id), sql`coalesce(${accounts.totpLastStep}, -1) < ${step}`))
          .returning({ id: accounts.id })
      ).length === 1;
    if (!fresh) await recordWrongCode(deps, ch, now);
  }

  // The account may have been deactivated (or the client lost production access) meanwhile.
  assertCanSignIn(deps, row.client, row.account);
  return deps.db.transaction(async (tx) => {
    const used = await tx
      .update(loginChallenges)
      .set({ consumedAt: now })
      .where(
        and(
          eq(loginChallenges.id, ch.id),
          isNull(loginChallenges.consumedAt),
          isNull(loginChallenges.invalidatedAt),
        ),
      )
      .returning({ id: loginChallenges.id });
    if (used.length !== 1) throw unauthorized(M.invalidOtpChallenge);
    await clearThrottle(tx, otpFailuresKey(ch.accountId));
    return startSession(deps, tx, row.account, now);
  });
}

export async function sendLoginEmailCode(deps: Deps, input: { challenge_token: string }) {
  const now = deps.clock.now();
  const ch = await liveChallenge(deps, input.challenge_token, now);
  // Email is the fallback whenever the effective policy allows it; an account that switched
  // email codes off (TOTP only) does not get a mailbox bypass.
  if (!ch.allowedMethods.includes('email')) throw badRequest(M.mfaMethodNotAllowed);
  const code = randomDigits(6);
  const cooldownStart = addSeconds(now, -EMAIL_OTP_COOLDOWN_SECONDS);
  // Compare-and-set on email_sent_at: of two concurrent sends only one passes the cooldown.
  const claimed = await deps.db
    .update(loginChallenges)
    .set({ emailCodeHash: keyedHash(deps.secrets.hashKey, code), emailSentAt: now })
    .where(
      and(
        eq(loginChallenges.id, ch.id),
        sql`(${loginChallenges.emailSentAt} is null or ${loginChallenges.emailSentAt} <= ${cooldownStart})`,
      ),
    )
    .returning({ id: loginChallenges.id });
  if (claimed.length !== 1) {
    const [cur] = await deps.db
      .select({ sentAt: loginChallenges.emailSentAt })
      .from(loginChallenges)
      .where(eq(loginChallenges.id, ch.id));
    const resetAt = addSeconds(cur?.sentAt ?? now, EMAIL_OTP_COOLDOWN_SECONDS);
    const seconds = Math.max(1, secondsUntil(now, resetAt));
    throw tooManyRequests(M.codeResendTooSoon(seconds), seconds, 1, resetAt);
  }
  const [account] = await deps.db.select().from(accounts).where(eq(accounts.id, ch.accountId));
  if (!account) throw unauthorized(M.invalidOtpChallenge);
  await sendAuthMail(deps, otpMail(account.email, code), async () => {
    // Not delivered: restore the previous code and allow an immediate retry.
    await deps.db
      .update(loginChallenges)
      .set({ emailCodeHash: ch.emailCodeHash, emailSentAt: ch.emailSentAt })
      .where(eq(loginChallenges.id, ch.id));
  });
  return { sent: true as const };
}
