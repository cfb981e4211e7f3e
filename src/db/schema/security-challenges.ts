import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';

/** A security challenge bound to one account and one action (ADD_MEMBER, CHANGE_PASSWORD, ...). */
export const securityChallenges = pgTable(
  'security_challenges',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    action: text('action').notNull(),
    method: text('method').notNull(),
    /** keyedHash of the challenge token handed to the caller. */
    tokenHash: text('token_hash').notNull().unique(),
    /** keyedHash of the emailed code; null for the totp method. */
    codeHash: text('code_hash'),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    invalidatedAt: ts('invalidated_at'),
    createdAt: createdAt(),
  },
  (t) => [index('security_challenges_account_idx').on(t.accountId, t.createdAt)],
);
