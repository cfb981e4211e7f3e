/**
 * Email and password login with lockout and MFA. A correct password either starts a session or,
 * when MFA applies, opens an `otp_pending` challenge (5 minutes, 5 attempts) completed at
 * /auth/login/verify-otp (see login-challenge.service.ts).
 */
import { eq } from 'drizzle-orm';
import { loginChallenges } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { addSeconds } from '../../../shared/clock';
import { keyedHash } from '../../../shared/crypto';
import { unauthorized } from '../../../shared/errors';
import { randomDigits, randomToken } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { recordActivity } from '../../activity/activity-writer.service';
import { sendAuthMail } from '../auth-mail.service';
import { effectiveMfa, type MfaMethod } from '../mfa/mfa.policy';
import { verifyPassword } from '../passwords/hashing.service';
import { assertCanSignIn, startSession, type TokenPair } from '../sessions/sessions.service';
import { acquireLoginSlots, releaseLoginSlots } from './inflight.service';
import {
  type AccountWithClient,
  findAccountForLogin,
  findLoginThrottles,
  type LoginThrottle,
} from './login.statements';
import {
  activeLockOf,
  clearThrottle,
  failuresInWindow,
  LOGIN_EMAIL_RULE,
  LOGIN_IP_RULE,
  lockedError,
  loginEmailKey,
  loginIpKey,
  recordFailure,
} from './throttle.service';

export const LOGIN_CHALLENGE_TTL_SECONDS = 5 * 60;
export const LOGIN_CHALLENGE_MAX_ATTEMPTS = 5;
export const EMAIL_OTP_COOLDOWN_SECONDS = 60;

export interface OtpPending {
  token_type: 'otp_pending';
  challenge_token: string;
  requires_mfa: true;
  allowed_mfa_methods: MfaMethod[];
  preferred_mfa_method: MfaMethod;
  expires_at: string;
}

export const otpMail = (to: string, code: string) => ({
  to,
  subject: 'Your sign-in code',
  text: `Your sign-in code is ${code}.\nIt expires in 5 minutes. If you did not try to sign in, change your password.`,
});

export async function login(
  deps: Deps,
  input: { client_email: string; password: string },
  ip: string,
): Promise<TokenPair | OtpPending> {
  const email = input.client_email.trim().toLowerCase();
  const emailKey = loginEmailKey(email);
  const ipKey = loginIpKey(ip);
  const now = deps.clock.now();
  const rules = [
    { key: emailKey, rule: LOGIN_EMAIL_RULE, limit: LOGIN_EMAIL_RULE.limit },
    { key: ipKey, rule: LOGIN_IP_RULE, limit: LOGIN_IP_RULE.limit },
  ];
  const limitOf = (key: string) => (key === ipKey ? LOGIN_IP_RULE.limit : LOGIN_EMAIL_RULE.limit);
  // The slot is taken before anything is awaited (inflight.service.ts says why).
  const slots = acquireLoginSlots(rules);
  if ('full' in slots) {
    throw lockedError(
      { key: slots.full, lockedUntil: addSeconds(now, 1) },
      now,
      limitOf(slots.full),
      M.tooManyAttempts,
    );
  }
  let row: AccountWithClient | undefined;
  let throttles: LoginThrottle[];
  try {
    // Lockout first: a locked email or IP is refused before the account read and before argon2.
    throttles = await findLoginThrottles(deps.database, [emailKey, ipKey]);
    const lock = activeLockOf(throttles, now);
    if (lock) throw lockedError(lock, now, limitOf(lock.key), M.tooManyAttempts);
    const over = rules.find(({ key, rule }, i) => {
      const recorded = throttles.find((t) => t.key === key);
      return (recorded ? failuresInWindow(recorded, rule, now) : 0) + slots.inFlight[i]! > rule.limit;
    });
    if (over)
      throw lockedError(
        { key: over.key, lockedUntil: addSeconds(now, 1) },
        now,
        over.limit,
        M.tooManyAttempts,
      );

    row = await findAccountForLogin(deps.database, email);
    // Unknown emails cost the same argon2 verification as known ones.
    const ok = await verifyPassword(row?.account.passwordHash, input.password);
    if (!row || !ok) {
      // Recorded before the slot is freed, so the next attempt sees the failure (or the lock).
      await recordFailure(deps.db, emailKey, LOGIN_EMAIL_RULE, now);
      await recordFailure(deps.db, ipKey, LOGIN_IP_RULE, now);
      // Written on its own: the attempt changed nothing. An unknown email names no client to log it for.
      if (row)
        await recordActivity(deps.db, {
          clientId: row.client.id,
          action: 'login.failed',
          outcome: 'failure',
          at: now,
          actor: { type: 'client_user', accountId: row.account.id, credentialId: null },
          target: { type: 'account', id: row.account.id, label: row.account.email },
          metadata: { reason: 'wrong password' },
        });
      throw unauthorized(M.incorrectLogin);
    }
  } finally {
    releaseLoginSlots(rules);
  }
  // Only an email with recorded failures has a row to clear (saves a statement per login).
  if (throttles.some((t) => t.key === emailKey)) await clearThrottle(deps.db, emailKey);
  const { account, client } = row;
  assertCanSignIn(deps, client, account);

  const mfa = effectiveMfa(client, account);
  if (!mfa.required) return startSession(deps, deps.db, account, now);

  const token = randomToken(32);
  const code = mfa.preferred === 'email' ? randomDigits(6) : null;
  const expiresAt = addSeconds(now, LOGIN_CHALLENGE_TTL_SECONDS);
  const [challenge] = await deps.db
    .insert(loginChallenges)
    .values({
      clientId: client.id,
      accountId: account.id,
      tokenHash: keyedHash(deps.secrets.hashKey, token),
      allowedMethods: mfa.methods,
      preferredMethod: mfa.preferred,
      emailCodeHash: code ? keyedHash(deps.secrets.hashKey, code) : null,
      emailSentAt: code ? now : null,
      expiresAt,
      createdAt: now,
    })
    .returning({ id: loginChallenges.id });
  if (code) {
    await sendAuthMail(deps, otpMail(account.email, code), async () => {
      await deps.db.delete(loginChallenges).where(eq(loginChallenges.id, challenge!.id));
    });
  }
  return {
    token_type: 'otp_pending',
    challenge_token: token,
    requires_mfa: true,
    allowed_mfa_methods: mfa.methods,
    preferred_mfa_method: mfa.preferred,
    expires_at: expiresAt.toISOString(),
  };
}
