import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { idColumn, ts } from './columns';
import { recurringRuns } from './recurring-runs';

/**
 * One attempt of a run: a platform transaction under the mandate (key `recurring:<run_id>:<n>`).
 * (run_id, retry_of_attempt) is unique, so any number of concurrent retries of attempt N create
 * exactly one attempt N+1. `launch_due_at` is the launch timer and lease: the transaction is made
 * and handed to the bank outside the transaction that recorded the attempt, and a crash in between
 * is picked up again by the worker (the derived key makes the relaunch idempotent).
 */
export const recurringAttempts = pgTable(
  'recurring_attempts',
  {
    id: idColumn('id'),
    runId: uuid('run_id')
      .notNull()
      .references(() => recurringRuns.id),
    attemptNumber: integer('attempt_number').notNull(),
    trigger: text('trigger').notNull(),
    retryOfAttempt: integer('retry_of_attempt'),
    transactionId: uuid('transaction_id'),
    startedAt: ts('started_at').notNull(),
    finishedAt: ts('finished_at'),
    /** null while processing, then succeeded | failed. */
    outcome: text('outcome'),
    failureReason: text('failure_reason'),
    launchDueAt: ts('launch_due_at'),
    launchError: text('launch_error'),
    /**
     * Committed (in its own transaction) just before the payment is sent to the network: a relaunch
     * that finds it set and the payment not found by reference holds the attempt for review instead
     * of sending again (the network's list may lag behind a payment it made).
     */
    networkSentAt: ts('network_sent_at'),
  },
  (t) => [
    uniqueIndex('recurring_attempts_run_number_uq').on(t.runId, t.attemptNumber),
    uniqueIndex('recurring_attempts_retry_of_uq').on(t.runId, t.retryOfAttempt),
    uniqueIndex('recurring_attempts_transaction_uq').on(t.transactionId),
    index('recurring_attempts_launch_due_idx').on(t.launchDueAt).where(sql`${t.launchDueAt} is not null`),
  ],
);
