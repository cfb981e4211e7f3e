import { sql } from 'drizzle-orm';
import { boolean, index, integer, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { recurringPayments } from './recurring-payments';

export const RECURRING_RUN_STATUSES = [
  'scheduled',
  'processing',
  'succeeded',
  'retry_scheduled',
  'failed',
  'skipped',
  'canceled',
] as const;
export type RecurringRunStatus = (typeof RECURRING_RUN_STATUSES)[number];

/**
 * One collection of a recurring payment. At most one run per (definition, scheduled_for): the unique
 * index makes the scheduler's insert idempotent across processes. Timers: `scheduled_for` (status
 * scheduled) and `next_retry_at` (status retry_scheduled).
 */
export const recurringRuns = pgTable(
  'recurring_runs',
  {
    id: idColumn('id'),
    definitionId: uuid('definition_id')
      .notNull()
      .references(() => recurringPayments.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    sequence: integer('sequence').notNull(),
    kind: text('kind').notNull(),
    scheduledFor: ts('scheduled_for').notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    description: text('description'),
    status: text('status').$type<RecurringRunStatus>().notNull(),
    transactionId: uuid('transaction_id'),
    failureReason: text('failure_reason'),
    willRetry: boolean('will_retry').notNull().default(false),
    nextRetryAt: ts('next_retry_at'),
    /** Automatic retries used so far (index into retry_after_hours). */
    autoRetries: integer('auto_retries').notNull().default(0),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('recurring_runs_definition_slot_uq')
      .on(t.definitionId, t.scheduledFor)
      .where(sql`${t.kind} = 'scheduled'`),
    uniqueIndex('recurring_runs_definition_sequence_uq').on(t.definitionId, t.sequence),
    index('recurring_runs_definition_idx').on(t.definitionId, t.createdAt),
    index('recurring_runs_due_idx').on(t.scheduledFor).where(sql`${t.status} = 'scheduled'`),
    index('recurring_runs_retry_due_idx').on(t.nextRetryAt).where(sql`${t.status} = 'retry_scheduled'`),
  ],
);
