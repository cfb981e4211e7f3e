/**
 * Dashboard sessions: a login creates a session (refresh-token family) and returns a 30-minute
 * access token (claim `sid` = session id) and a 30-day opaque refresh token. Refresh rotates the
 * refresh token; presenting a rotated one again is treated as theft and revokes the session, which
 * also invalidates every access token of that session (the auth plugin checks it per request).
 */

import { and, eq, isNull, ne } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { toSql } from '../../../db/hot';
import { accounts, clients, refreshSessions, refreshTokens, revokedTokens } from '../../../db/schema/index';
import type { Deps } from '../../../deps';
import { addSeconds } from '../../../shared/clock';
import { keyedHash } from '../../../shared/crypto';
import { badRequest, forbidden, unauthorized } from '../../../shared/errors';
import { newId, randomToken } from '../../../shared/ids';
import { M } from '../../../shared/messages';
import { activityInsertText, activityValues } from '../../activity/activity-writer.service';
import { isAwaitingVerification } from '../registration/registration.machine';
import type { Role } from '../team/permissions.policy';
import { signToken } from './tokens.service';

export const DASHBOARD_TOKEN_TTL_SECONDS = 30 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

export type RevokeReason = 'logout' | 'reuse_detected' | 'password_changed';

type AccountRow = typeof accounts.$inferSelect;
type ClientRow = typeof clients.$inferSelect;

/**
 * The checks every way into a dashboard session repeats (login, OTP completion, refresh):
 * verified, active client and account, production access on production deployments.
 */
export function assertCanSignIn(deps: Deps, client: ClientRow, account: AccountRow): void {
  if (isAwaitingVerification(client.status)) throw forbidden(M.clientNotActivated);
  if (!client.isActive) throw unauthorized(M.clientNotActive);
  if (!account.isActive) throw unauthorized(M.accountNotActive);
  if (deps.config.environment === 'production' && !client.productionAccessEnabled)
    throw forbidden(M.productionAccessDisabled);
}

async function signAccess(deps: Deps, account: AccountRow, sessionId: string, now: Date) {
  return signToken(
    deps.secrets.jwtKey,
    {
      sub: account.clientId,
      type: 'client_access',
      actor_type: 'client_user',
      role: account.role as Role,
      account_id: account.id,
      sid: sessionId,
      environment: deps.config.environment,
    },
    DASHBOARD_TOKEN_TTL_SECONDS,
    now,
  );
}

async function insertRefreshToken(deps: Deps, tx: DbOrTx, sessionId: string, now: Date): Promise<string> {
  const token = randomToken(32);
  await tx.insert(refreshTokens).values({
    tokenHash: keyedHash(deps.secrets.hashKey, token),
    sessionId,
    expiresAt: addSeconds(now, REFRESH_TOKEN_TTL_SECONDS),
    createdAt: now,
  });
  return token;
}

/**
 * The session, its first refresh token, the account's last login and the `login.succeeded` entry in
 * one statement (atomic on its own, or part of the caller's transaction): a login pays one round
 * trip for them instead of a transaction of six.
 */
const START_SESSION = `with s as (
    insert into refresh_sessions (id, client_id, account_id, created_at)
    values ($1::uuid, $2::uuid, $3::uuid, $4::timestamptz) returning id),
  t as (
    insert into refresh_tokens (token_hash, session_id, expires_at, created_at)
    select $5, s.id, $6::timestamptz, $4::timestamptz from s),
  a as (update accounts set last_login_at = $4::timestamptz where id = $3::uuid),
  l as (${activityInsertText(7)})
  select 1`;

/** Starts a session for a signed-in account (in the caller's transaction when `db` is one). */
export async function startSession(
  deps: Deps,
  db: DbOrTx,
  account: AccountRow,
  now: Date,
): Promise<TokenPair> {
  const sessionId = newId();
  const refresh = randomToken(32);
  const entry = activityValues({
    clientId: account.clientId,
    action: 'login.succeeded',
    at: now,
    actor: { type: 'client_user', accountId: account.id, credentialId: null },
    target: { type: 'account', id: account.id, label: account.email },
    metadata: { session_id: sessionId },
  });
  const params = [
    sessionId,
    account.clientId,
    account.id,
    now.toISOString(),
    keyedHash(deps.secrets.hashKey, refresh),
    addSeconds(now, REFRESH_TOKEN_TTL_SECONDS).toISOString(),
    ...entry,
  ];
  const [access] = await Promise.all([
    signAccess(deps, account, sessionId, now),
    // Outside a transaction (a password login) it runs as a named prepared statement.
    db === deps.db
      ? deps.database.query('start_session', START_SESSION, params)
      : db.execute(toSql(START_SESSION, params)),
  ]);
  return {
    access_token: access.token,
    refresh_token: refresh,
    token_type: 'bearer',
    expires_in: DASHBOARD_TOKEN_TTL_SECONDS,
  };
}

export async function revokeSession(db: DbOrTx, sessionId: string, reason: RevokeReason, now: Date) {
  await db
    .update(refreshSessions)
    .set({ revokedAt: now, revokeReason: reason })
    .where(and(eq(refreshSessions.id, sessionId), isNull(refreshSessions.revokedAt)));
}

/** Revokes every live session of an account except `keepSessionId` (password change). */
export async function revokeOtherSessions(
  db: DbOrTx,
  accountId: string,
  keepSessionId: string | null,
  reason: RevokeReason,
  now: Date,
) {
  const conds = [eq(refreshSessions.accountId, accountId), isNull(refreshSessions.revokedAt)];
  if (keepSessionId) conds.push(ne(refreshSessions.id, keepSessionId));
  await db
    .update(refreshSessions)
    .set({ revokedAt: now, revokeReason: reason })
    .where(and(...conds));
}

/** Rotates a refresh token: the presented one is marked used, a new pair is returned. */
export async function refreshSession(deps: Deps, refreshToken: string): Promise<TokenPair> {
  const now = deps.clock.now();
  const hash = keyedHash(deps.secrets.hashKey, refreshToken);
  const [row] = await deps.db
    .select({ token: refreshTokens, session: refreshSessions })
    .from(refreshTokens)
    .innerJoin(refreshSessions, eq(refreshSessions.id, refreshTokens.sessionId))
    .where(eq(refreshTokens.tokenHash, hash));
  if (!row || row.session.revokedAt) throw badRequest(M.invalidRefreshToken);
  if (row.token.usedAt) {
    // A rotated token came back: whoever holds the family may be an attacker. End the session.
    await revokeSession(deps.db, row.session.id, 'reuse_detected', now);
    throw badRequest(M.invalidRefreshToken);
  }
  if (row.token.expiresAt <= now) throw badRequest(M.invalidRefreshToken);

  const [joined] = await deps.db
    .select({ account: accounts, client: clients })
    .from(accounts)
    .innerJoin(clients, eq(clients.id, accounts.clientId))
    .where(eq(accounts.id, row.session.accountId));
  if (!joined) throw badRequest(M.invalidRefreshToken);
  assertCanSignIn(deps, joined.client, joined.account);

  const result = await deps.db.transaction(async (tx) => {
    const used = await tx
      .update(refreshTokens)
      .set({ usedAt: now })
      .where(and(eq(refreshTokens.tokenHash, hash), isNull(refreshTokens.usedAt)))
      .returning({ h: refreshTokens.tokenHash });
    if (used.length !== 1) return null; // a concurrent refresh won: this one is a reuse
    const refresh = await insertRefreshToken(deps, tx, row.session.id, now);
    await tx
      .update(refreshSessions)
      .set({ lastRefreshedAt: now })
      .where(eq(refreshSessions.id, row.session.id));
    return refresh;
  });
  if (result === null) {
    await revokeSession(deps.db, row.session.id, 'reuse_detected', now);
    throw badRequest(M.invalidRefreshToken);
  }
  const access = await signAccess(deps, joined.account, row.session.id, now);
  return {
    access_token: access.token,
    refresh_token: result,
    token_type: 'bearer',
    expires_in: DASHBOARD_TOKEN_TTL_SECONDS,
  };
}

/**
 * Revokes the caller's access token (revoked_tokens, checked by every node) and, when a refresh
 * token is given, its session, which must be the caller's own.
 */
export async function logout(
  deps: Deps,
  caller: { tokenId: string; tokenExpiresAt: Date; sessionId: string | null },
  refreshToken: string | undefined,
): Promise<void> {
  const now = deps.clock.now();
  let sessionId: string | null = null;
  if (refreshToken !== undefined) {
    // API credential tokens have no refresh session to end.
    if (!caller.sessionId) throw badRequest(M.notDashboardToken);
    const [row] = await deps.db
      .select({ sessionId: refreshTokens.sessionId })
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, keyedHash(deps.secrets.hashKey, refreshToken)));
    if (!row) throw badRequest(M.invalidRefreshToken);
    if (row.sessionId !== caller.sessionId) throw badRequest(M.refreshTokenMismatch);
    sessionId = row.sessionId;
  }
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(revokedTokens)
      .values({ jti: caller.tokenId, expiresAt: caller.tokenExpiresAt, revokedAt: now })
      .onConflictDoNothing();
    if (sessionId) await revokeSession(tx, sessionId, 'logout', now);
  });
}
