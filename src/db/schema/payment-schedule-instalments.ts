import { index, integer, numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { idColumn, ts, updatedAt } from './columns';
import { paymentSchedules } from './payment-schedules';

export const INSTALMENT_STATUSES = ['scheduled', 'issued', 'paid', 'overdue', 'canceled'] as const;
export type InstalmentStatus = (typeof INSTALMENT_STATUSES)[number];

/**
 * One instalment. Its due times are columns, each with a timer job written beside it
 * (src/modules/schedules/schedules.jobs.ts): `issue_due_at` (first issue at issue_at, hourly
 * retries after an issue error, an automatic re-issue after a failed link), `grace_end_at` (overdue
 * while issued), and `intent_cancel_due_at` (a pending intent to cancel after an overdue/cancel).
 */
export const paymentScheduleInstalments = pgTable(
  'payment_schedule_instalments',
  {
    id: idColumn('id'),
    scheduleId: uuid('schedule_id')
      .notNull()
      .references(() => paymentSchedules.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    sequence: integer('sequence').notNull(),
    amount: numeric('amount').notNull(),
    /** YYYY-MM-DD */
    dueDate: text('due_date').notNull(),
    issueAt: ts('issue_at').notNull(),
    graceEndAt: ts('grace_end_at').notNull(),
    status: text('status').$type<InstalmentStatus>().notNull(),
    transactionId: uuid('transaction_id'),
    /** The current link's hosted checkout URL. */
    checkoutUrl: text('checkout_url'),
    /** Links issued so far (the current link's number). */
    linkNumber: integer('link_number').notNull().default(0),
    issueError: text('issue_error'),
    issueDueAt: ts('issue_due_at'),
    intentCancelDueAt: ts('intent_cancel_due_at'),
    /** The transaction whose pending intent is to be canceled. */
    intentToCancel: uuid('intent_to_cancel'),
    paidAt: ts('paid_at'),
    version: integer('version').notNull().default(1),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('payment_schedule_instalments_schedule_idx').on(t.scheduleId, t.sequence),
    index('payment_schedule_instalments_transaction_idx').on(t.transactionId),
  ],
);
