import { desc, sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const SCHEDULE_STATUSES = ['active', 'past_due', 'completed', 'canceled'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/**
 * A payment schedule: a total split into dated instalments, each paid
 * through a payment link the platform issues. Status moves only through schedules.machine.ts
 * (compare-and-set on status + version).
 */
export const paymentSchedules = pgTable(
  'payment_schedules',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    status: text('status').$type<ScheduleStatus>().notNull(),
    projectId: uuid('project_id').notNull(),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    currency: text('currency').notNull(),
    /** Sum of the instalments (kept equal by every instalment edit, in SQL numeric). */
    totalAmount: numeric('total_amount').notNull(),
    description: text('description'),
    issueDaysBefore: integer('issue_days_before').notNull(),
    graceDays: integer('grace_days').notNull(),
    /** email or none */
    delivery: text('delivery').notNull(),
    reminders: boolean('reminders').notNull(),
    /** SVC_SCHEDULE_MAX_LINKS_PER_INSTALMENT when the schedule was created. */
    maxLinks: integer('max_links').notNull(),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    cancelReason: text('cancel_reason'),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    canceledAt: ts('canceled_at'),
    completedAt: ts('completed_at'),
  },
  (t) => [
    index('payment_schedules_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('payment_schedules_client_status_idx').on(t.clientId, t.status, desc(t.createdAt)),
    index('payment_schedules_client_project_idx').on(t.clientId, t.projectId, desc(t.createdAt)),
    index('payment_schedules_client_user_idx')
      .on(t.clientId, t.userId, desc(t.createdAt))
      .where(sql`${t.userId} is not null`),
    index('payment_schedules_client_business_idx')
      .on(t.clientId, t.businessCustomerId, desc(t.createdAt))
      .where(sql`${t.businessCustomerId} is not null`),
  ],
);
