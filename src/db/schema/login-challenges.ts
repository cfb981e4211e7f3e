import { index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';

/** The `otp_pending` state between a correct password and a verified second factor. */
export const loginChallenges = pgTable(
  'login_challenges',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** keyedHash of the challenge token handed to the caller. */
    tokenHash: text('token_hash').notNull().unique(),
    allowedMethods: jsonb('allowed_methods').$type<string[]>().notNull(),
    preferredMethod: text('preferred_method').notNull(),
    /** keyedHash of the latest emailed code; null until one is sent. */
    emailCodeHash: text('email_code_hash'),
    emailSentAt: ts('email_sent_at'),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    invalidatedAt: ts('invalidated_at'),
    createdAt: createdAt(),
  },
  (t) => [index('login_challenges_account_idx').on(t.accountId, t.createdAt)],
);
