import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/**
 * A client's API credential (server-to-server). The secret is never stored: only
 * keyedHash(hashKey, secret). `permissions` is null for a role credential (it follows the role's
 * row of the matrix) and an explicit list for a custom permission set (role is then `developer`).
 */
export const apiCredentials = pgTable(
  'api_credentials',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    label: text('label').notNull(),
    /** Public identifier, e.g. pk_sandbox_...; unique across the deployment. */
    apiKey: text('api_key').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    role: text('role').notNull(),
    permissions: jsonb('permissions').$type<string[] | null>(),
    createdByAccountId: uuid('created_by_account_id').references(() => accounts.id, { onDelete: 'set null' }),
    /** Tokens issued before this instant (second precision, JWT iat) are refused: set on reset-secret. */
    tokensValidFrom: ts('tokens_valid_from').notNull().defaultNow(),
    secretRotatedAt: ts('secret_rotated_at'),
    /**
     * Credential generation, carried in every token it mints (`gen`) and bumped by reset-secret and
     * disable: a token whose generation is not the current one is refused, even if it was minted in
     * the same second as the rotation (iat has second precision, so tokens_valid_from alone cannot).
     */
    tokenGeneration: integer('token_generation').notNull().default(0),
    disabledAt: ts('disabled_at'),
    lastUsedAt: ts('last_used_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('api_credentials_client_idx').on(t.clientId, t.createdAt)],
);

/**
 * Failed token exchanges per API key (keyed hash of the presented key, so unknown keys are
 * counted too and the lockout does not reveal which keys exist). Five failures without a quiet
 * period lock the key for five minutes. Rows are deleted on success and swept when stale.
 */
export const apiKeyLockouts = pgTable(
  'api_key_lockouts',
  {
    keyHash: text('key_hash').primaryKey(),
    failures: integer('failures').notNull().default(0),
    lastFailureAt: ts('last_failure_at').notNull(),
    lockedUntil: ts('locked_until'),
  },
  (t) => [index('api_key_lockouts_last_failure_idx').on(t.lastFailureAt)],
);
