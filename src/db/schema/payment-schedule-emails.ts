import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';
import { paymentScheduleInstalments } from './payment-schedule-instalments';

/** Payer emails (link, reminder the day before, reminder on the due date), sent by a worker outside transactions. */
export const paymentScheduleEmails = pgTable(
  'payment_schedule_emails',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    instalmentId: uuid('instalment_id')
      .notNull()
      .references(() => paymentScheduleInstalments.id),
    /** link, reminder_before, reminder_due */
    kind: text('kind').notNull(),
    linkNumber: integer('link_number').notNull(),
    /** pending, sent, skipped, failed */
    state: text('state').notNull().default('pending'),
    dueAt: ts('due_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    sentAt: ts('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('payment_schedule_emails_due_idx').on(t.dueAt).where(sql`${t.state} = 'pending'`),
    index('payment_schedule_emails_instalment_idx').on(t.instalmentId),
    uniqueIndex('payment_schedule_emails_once_uq').on(t.instalmentId, t.kind, t.linkNumber),
  ],
);
