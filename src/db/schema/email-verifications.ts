import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';

/** The emailed registration code of an account (one live code per account; a resend replaces it). */
export const emailVerifications = pgTable(
  'email_verifications',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    accountId: uuid('account_id')
      .notNull()
      .unique()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** keyedHash of the 6-digit code. */
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    sentAt: ts('sent_at').notNull(),
    consumedAt: ts('consumed_at'),
    createdAt: createdAt(),
  },
  (t) => [index('email_verifications_client_idx').on(t.clientId)],
);
