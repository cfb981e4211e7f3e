import { sql } from 'drizzle-orm';
import { index, integer, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const RECURRING_STATUSES = [
  'pending_authorization',
  'active',
  'paused',
  'completed',
  'canceled',
  'revoked',
  'authorization_failed',
  'expired',
] as const;
export type RecurringStatus = (typeof RECURRING_STATUSES)[number];

/** The mandate's own status, shown under `mandate.status`. */
export const MANDATE_STATUSES = [
  'awaiting_authorization',
  'authorized',
  'rejected',
  'revoked',
  'expired',
] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];

/**
 * A recurring payment (definition): a VRP mandate plus an optional schedule. Timers read by the recurring worker with FOR UPDATE SKIP LOCKED: `authorization_expires_at`
 * (pending_authorization -> expired), `paused_until` (resume), `valid_to` (mandate expiry),
 * `mandate_revoke_due_at` (revoke the mandate at the bank after cancel/complete).
 */
export const recurringPayments = pgTable(
  'recurring_payments',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    projectId: uuid('project_id').notNull(),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    status: text('status').$type<RecurringStatus>().notNull(),
    statusReason: text('status_reason'),
    currency: text('currency').notNull(),
    amount: numeric('amount'),
    description: text('description'),
    reference: text('reference'),
    /** {interval, interval_count, start_date, day_of_month?, end_date?, max_runs?} or null. */
    schedule: jsonb('schedule').$type<RecurringScheduleJson | null>(),
    retryPolicy: jsonb('retry_policy')
      .$type<{ auto_retry: boolean; retry_after_hours: number[] }>()
      .notNull(),
    redirectUrl: text('redirect_url'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    runsCount: integer('runs_count').notNull().default(0),
    /** Scheduled runs created so far (sequence source for scheduled runs and `max_runs`). */
    scheduledCount: integer('scheduled_count').notNull().default(0),
    pausedUntil: ts('paused_until'),
    canceledAt: ts('canceled_at'),
    // ---- the mandate (limits never change) ----
    maxAmountPerPayment: numeric('max_amount_per_payment').notNull(),
    periodicAmount: numeric('periodic_amount').notNull(),
    period: text('period').notNull(),
    alignment: text('alignment').notNull(),
    validFrom: ts('valid_from').notNull(),
    validTo: ts('valid_to'),
    mandateStatus: text('mandate_status').$type<MandateStatus>().notNull(),
    bankId: text('bank_id'),
    bankName: text('bank_name'),
    /** The bank's id of the mandate (set once the payer picks a bank). */
    mandateRef: text('mandate_ref'),
    authorizedAt: ts('authorized_at'),
    /** Hosted page token `/checkout/mandate/{token}` (32 random bytes). */
    authorizationToken: text('authorization_token').notNull(),
    authorizationExpiresAt: ts('authorization_expires_at').notNull(),
    mandateRevokeDueAt: ts('mandate_revoke_due_at'),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('recurring_payments_client_idx').on(t.clientId, t.createdAt),
    uniqueIndex('recurring_payments_token_uq').on(t.authorizationToken),
    uniqueIndex('recurring_payments_mandate_ref_uq').on(t.mandateRef),
    index('recurring_payments_auth_expiry_idx')
      .on(t.authorizationExpiresAt)
      .where(sql`${t.status} = 'pending_authorization'`),
    index('recurring_payments_paused_idx').on(t.pausedUntil).where(sql`${t.status} = 'paused'`),
    index('recurring_payments_valid_to_idx').on(t.validTo).where(sql`${t.status} in ('active', 'paused')`),
    index('recurring_payments_revoke_due_idx')
      .on(t.mandateRevokeDueAt)
      .where(sql`${t.mandateRevokeDueAt} is not null`),
  ],
);

export interface RecurringScheduleJson {
  interval: 'week' | 'month' | 'year';
  interval_count: number;
  start_date: string;
  day_of_month?: number;
  end_date?: string;
  max_runs?: number;
}
