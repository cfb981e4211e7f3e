import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { bulkPaymentJobs } from './bulk-payment-jobs';
import { clients } from './clients';
import { ts, updatedAt } from './columns';

export interface BulkRowError {
  field: string | null;
  value: unknown;
  msg: string;
}

export const BULK_ROW_STATUSES = ['valid', 'invalid', 'pending', 'created', 'failed', 'canceled'] as const;
export type BulkRowStatus = (typeof BULK_ROW_STATUSES)[number];

/**
 * One row of a bulk job. `input` is the row as given (flat columns, `metadata.<key>` included);
 * `body` is the validated paylink body; `payer_user_id` the user resolved from `email` (found, or
 * created with create_missing_users).
 * A pending row is leased by a worker (`lease_until`) while its link is being created.
 */
export const bulkPaymentRows = pgTable(
  'bulk_payment_rows',
  {
    bulkId: uuid('bulk_id')
      .notNull()
      .references(() => bulkPaymentJobs.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    rowNumber: integer('row_number').notNull(),
    reference: text('reference'),
    status: text('status').$type<BulkRowStatus>().notNull(),
    input: jsonb('input').$type<Record<string, unknown>>().notNull(),
    errors: jsonb('errors').$type<BulkRowError[]>().notNull().default([]),
    /** The POST /checkout/paylink body that passed validation (null while invalid). */
    body: jsonb('body').$type<Record<string, unknown>>(),
    payerUserId: uuid('payer_user_id'),
    transactionId: uuid('transaction_id'),
    attempts: integer('attempts').notNull().default(0),
    leaseUntil: ts('lease_until'),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.bulkId, t.rowNumber], name: 'bulk_payment_rows_pk' }),
    index('bulk_payment_rows_status_idx').on(t.bulkId, t.status, t.rowNumber),
    index('bulk_payment_rows_pending_idx').on(t.leaseUntil).where(sql`${t.status} = 'pending'`),
  ],
);
