/**
 * Security challenges for sensitive actions. Step 1: POST /auth/security/request-code returns a
 * challenge token (5 minutes) bound to the caller's account and one action; for `email` a
 * 6-digit code is mailed, for `totp` the code is the account's current authenticator code.
 * Step 2: the protected request carries X-Security-Token, X-Security-Code, X-Security-Method.
 * Five wrong codes invalidate the challenge. A challenge is single-use.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { DbOrTx } from '../../../db/client';
import { accounts, securityChallenges } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { MailDeliveryError } from '../../../providers/mail/port';
import { addSeconds } from '../../../shared/clock';
import { decrypt, keyedHash, safeEqual } from '../../../shared/crypto';
import { AppError, badRequest, forbidden } from '../../../shared/errors';
import { randomDigits, randomToken } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { verifyTotp } from '../mfa/totp.service';

export const SECURITY_ACTIONS = [
  'ADD_MEMBER',
  'UPDATE_MEMBER',
  'DELETE_MEMBER',
  'CHANGE_PASSWORD',
  'REFRESH_API_KEY',
  'DISABLE_TOTP',
] as const;
export type SecurityAction = (typeof SECURITY_ACTIONS)[number];
export type ChallengeMethod = 'email' | 'totp';

export const CHALLENGE_TTL_SECONDS = 5 * 60;
export const CHALLENGE_MAX_ATTEMPTS = 5;

export interface RequestedChallenge {
  challenge_token: string;
  action: SecurityAction;
  method: ChallengeMethod;
  expires_at: string;
}

export async function requestSecurityCode(
  deps: Deps,
  caller: { clientId: string; accountId: string },
  action: SecurityAction,
  method: ChallengeMethod,
): Promise<RequestedChallenge> {
  const [account] = await deps.db.select().from(accounts).where(eq(accounts.id, caller.accountId));
  if (!account || account.clientId !== caller.clientId) throw badRequest(M.accountNotFound);
  if (method === 'totp' && !(account.totpSecretEnc && account.mfaTotpEnabled))
    throw badRequest(M.totpNotEnabled);
  const token = randomToken(32);
  const code = method === 'email' ? randomDigits(6) : null;
  const now = deps.clock.now();
  const expiresAt = addSeconds(now, CHALLENGE_TTL_SECONDS);
  const [row] = await deps.db
    .insert(securityChallenges)
    .values({
      clientId: caller.clientId,
      accountId: caller.accountId,
      action,
      method,
      tokenHash: keyedHash(deps.secrets.hashKey, token),
      codeHash: code ? keyedHash(deps.secrets.hashKey, code) : null,
      expiresAt,
      createdAt: now,
    })
    .returning({ id: securityChallenges.id });
  if (code) {
    try {
      await deps.mailer.send({
        to: account.email,
        subject: 'Your security code',
        text: `Your security code for ${action.toLowerCase().replace(/_/g, ' ')} is ${code}.\nIt expires in 5 minutes. If you did not request it, change your password.`,
      });
    } catch (err) {
      await deps.db.delete(securityChallenges).where(eq(securityChallenges.id, row!.id));
      if (err instanceof MailDeliveryError) throw new AppError(503, M.emailDeliveryFailed);
      throw err;
    }
  }
  return { challenge_token: token, action, method, expires_at: expiresAt.toISOString() };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() || undefined;
}

/**
 * Checks the security headers of a protected request against a challenge of the caller's account
 * for `action`. Failed attempts are counted in their own statement (they must stick even when the
 * request fails). Returns the challenge id; pass it to `consumeSecurityChallenge` inside the
 * transaction that performs the action so the challenge is used exactly once.
 */
export async function verifySecurityChallenge(
  deps: Deps,
  request: FastifyRequest,
  caller: { clientId: string; accountId: string | null },
  action: SecurityAction,
): Promise<string> {
  const token = header(request, 'x-security-token');
  const code = header(request, 'x-security-code');
  const method = header(request, 'x-security-method');
  if (!token || !code || !method) throw forbidden(M.securityChallengeRequired);
  if (!caller.accountId) throw forbidden(M.dashboardTokenRequired);
  const [ch] = await deps.db
    .select()
    .from(securityChallenges)
    .where(eq(securityChallenges.tokenHash, keyedHash(deps.secrets.hashKey, token)));
  const now = deps.clock.now();
  if (
    !ch ||
    ch.accountId !== caller.accountId ||
    ch.clientId !== caller.clientId ||
    ch.action !== action ||
    ch.method !== method ||
    ch.consumedAt ||
    ch.invalidatedAt ||
    ch.expiresAt <= now ||
    ch.attempts >= CHALLENGE_MAX_ATTEMPTS
  ) {
    throw badRequest(M.securityChallengeInvalid);
  }
  let ok = false;
  if (ch.method === 'email') {
    ok = ch.codeHash !== null && safeEqual(ch.codeHash, keyedHash(deps.secrets.hashKey, code));
  } else {
    const [account] = await deps.db.select().from(accounts).where(eq(accounts.id, ch.accountId));
    if (account?.totpSecretEnc) {
      const step = verifyTotp(decrypt(deps.secrets.encryptionKey, account.totpSecretEnc), code, now);
      // A TOTP code is single-use: the step must be newer than the last one accepted.
      if (step !== null && (account.totpLastStep === null || step > account.totpLastStep)) {
        const moved = await deps.db
          .update(accounts)
          .set({ totpLastStep: step })
          .where(and(eq(accounts.id, account.id), sql`coalesce(${accounts.totpLastStep}, -1) < ${step}`))
          .returning({ id: accounts.id });
        ok = moved.length === 1;
      }
    }
  }
  if (!ok) {
    const [after] = await deps.db
      .update(securityChallenges)
      .set({ attempts: sql`${securityChallenges.attempts} + 1` })
      .where(eq(securityChallenges.id, ch.id))
      .returning({ attempts: securityChallenges.attempts });
    if ((after?.attempts ?? CHALLENGE_MAX_ATTEMPTS) >= CHALLENGE_MAX_ATTEMPTS) {
      await deps.db
        .update(securityChallenges)
        .set({ invalidatedAt: now })
        .where(eq(securityChallenges.id, ch.id));
    }
    throw badRequest(M.securityCodeInvalid);
  }
  return ch.id;
}

/** Marks the challenge used; throws when a concurrent request consumed it first. */
export async function consumeSecurityChallenge(tx: DbOrTx, challengeId: string, now: Date): Promise<void> {
  const used = await tx
    .update(securityChallenges)
    .set({ consumedAt: now })
    .where(and(eq(securityChallenges.id, challengeId), isNull(securityChallenges.consumedAt)))
    .returning({ id: securityChallenges.id });
  if (used.length !== 1) throw badRequest(M.securityChallengeInvalid);
}
