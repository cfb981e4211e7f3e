/**
 * Purges authentication rows that can no longer matter, in small batches so no statement holds
 * locks for long. Retention keeps what revocation checks need: a revoked session stays a day
 * (its access tokens live 30 minutes), a revoked access token until its own expiry.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../db/client';
import type { Deps } from '../../../deps';
import { addSeconds } from '../../../shared/clock';
import { REFRESH_TOKEN_TTL_SECONDS } from './sessions.service';

const BATCH = 500;
const DAY = 24 * 3600;

/** One pass; returns how many rows were deleted (a full batch means "run again"). */
export async function purgeExpiredAuthRows(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const dayAgo = addSeconds(now, -DAY);
  const idleCutoff = addSeconds(now, -(REFRESH_TOKEN_TTL_SECONDS + DAY));
  const statements = [
    sql`delete from revoked_tokens where jti in (
          select jti from revoked_tokens where expires_at < ${now} limit ${BATCH}) returning 1`,
    sql`delete from refresh_tokens where token_hash in (
          select t.token_hash from refresh_tokens t join refresh_sessions s on s.id = t.session_id
           where t.expires_at < ${now} or s.revoked_at < ${dayAgo} limit ${BATCH}) returning 1`,
    sql`delete from refresh_sessions where id in (
          select s.id from refresh_sessions s
           where (s.revoked_at < ${dayAgo} or coalesce(s.last_refreshed_at, s.created_at) < ${idleCutoff})
             and not exists (select 1 from refresh_tokens t where t.session_id = s.id)
           limit ${BATCH}) returning 1`,
    sql`delete from login_challenges where id in (
          select id from login_challenges where expires_at < ${dayAgo} limit ${BATCH}) returning 1`,
    sql`delete from totp_enrollments where id in (
          select id from totp_enrollments where expires_at < ${dayAgo} limit ${BATCH}) returning 1`,
    sql`delete from email_verifications where id in (
          select id from email_verifications where consumed_at < ${dayAgo} limit ${BATCH}) returning 1`,
    sql`delete from auth_throttles where key in (
          select key from auth_throttles
           where (locked_until is null or locked_until < ${now}) and window_started_at < ${dayAgo}
           limit ${BATCH}) returning 1`,
  ];
  let deleted = 0;
  for (const statement of statements) deleted += rowsOf(await deps.db.execute(statement)).length;
  return deleted;
}
