/** Changing one's own password (CHANGE_PASSWORD security challenge). */

import { and, eq, sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { accounts, securityChallenges } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import type { ClientAuth } from '../../../plugins/auth';
import { badRequest, invalidField, notFound } from '../../../shared/errors';
import { M } from '../../../shared/messages';
import { recordActivity } from '../../activity/activity-writer.service';
import {
  CHALLENGE_MAX_ATTEMPTS,
  consumeSecurityChallenge,
  verifySecurityChallenge,
} from '../security-challenges/security-challenges.service';
import { revokeOtherSessions } from '../sessions/sessions.service';
import { hashPassword, isPasswordLongEnough, PASSWORD_MIN_LENGTH, verifyPassword } from './hashing.service';

/**
 * A wrong current password counts as a failed attempt on the security challenge (5 kill it), so
 * one challenge cannot be used to guess the password.
 */
async function countFailedAttempt(deps: Deps, challengeId: string) {
  await deps.db
    .update(securityChallenges)
    .set({
      attempts: sql`${securityChallenges.attempts} + 1`,
      invalidatedAt: sql`case when ${securityChallenges.attempts} + 1 >= ${CHALLENGE_MAX_ATTEMPTS} then ${deps.clock.now()}::timestamptz else ${securityChallenges.invalidatedAt} end`,
    })
    .where(eq(securityChallenges.id, challengeId));
}

export async function changePassword(
  deps: Deps,
  auth: ClientAuth,
  request: FastifyRequest,
  input: { current_password: string; new_password: string },
) {
  if (!isPasswordLongEnough(input.new_password))
    throw invalidField(
      ['body', 'new_password'],
      `Password must be at least ${PASSWORD_MIN_LENGTH} characters`,
    );
  const [account] = await deps.db
    .select()
    .from(accounts)
    .where(and(eq(accounts.id, auth.accountId ?? ''), eq(accounts.clientId, auth.clientId)));
  if (!account) throw notFound(M.accountNotFound);
  const challengeId = await verifySecurityChallenge(deps, request, auth, 'CHANGE_PASSWORD');
  if (!(await verifyPassword(account.passwordHash, input.current_password))) {
    await countFailedAttempt(deps, challengeId);
    throw badRequest(M.currentPasswordIncorrect);
  }
  if (input.new_password === input.current_password) throw badRequest(M.passwordMustDiffer);
  const passwordHash = await hashPassword(input.new_password);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await consumeSecurityChallenge(tx, challengeId, now);
    await tx
      .update(accounts)
      .set({ passwordHash, passwordChangedAt: now, updatedAt: now })
      .where(eq(accounts.id, account.id));
    // Other devices must sign in again with the new password; this session continues.
    await revokeOtherSessions(tx, account.id, auth.sessionId, 'password_changed', now);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'account.password_changed',
      at: now,
      target: { type: 'account', id: account.id, label: account.email },
      changes: { password: { from: 'old', to: 'new' } },
    });
  });
  return { password_changed: true as const, password_changed_at: now.toISOString() };
}
