import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';

/**
 * A dashboard login session (one refresh-token family). Access tokens carry its id as `sid`;
 * revoking the session makes its refresh tokens and its access tokens unusable on every node.
 */
export const refreshSessions = pgTable(
  'refresh_sessions',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    lastRefreshedAt: ts('last_refreshed_at'),
    revokedAt: ts('revoked_at'),
    /** logout, reuse_detected, password_changed */
    revokeReason: text('revoke_reason'),
    createdAt: createdAt(),
  },
  (t) => [index('refresh_sessions_account_idx').on(t.accountId, t.createdAt)],
);

/** Every refresh token ever issued for a session; a used (rotated) one presented again is reuse. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    /** keyedHash of the opaque refresh token. */
    tokenHash: text('token_hash').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => refreshSessions.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('refresh_tokens_session_idx').on(t.sessionId)],
);
