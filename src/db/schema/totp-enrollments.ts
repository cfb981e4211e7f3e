import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';

/** A started TOTP enrollment (10 minutes): the candidate secret waits here until confirmed. */
export const totpEnrollments = pgTable(
  'totp_enrollments',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    /** Candidate secret, encrypted at rest. */
    secretEnc: text('secret_enc').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    createdAt: createdAt(),
  },
  (t) => [index('totp_enrollments_account_idx').on(t.accountId, t.createdAt)],
);
