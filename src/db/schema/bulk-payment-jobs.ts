import { desc, sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const BULK_JOB_STATUSES = [
  'previewed',
  'queued',
  'processing',
  'completed',
  'completed_with_errors',
  'canceled',
  'expired',
] as const;
export type BulkJobStatus = (typeof BULK_JOB_STATUSES)[number];

/**
 * A bulk payment-link job. Status moves only through bulk.machine.ts as a
 * compare-and-set on (status, version); `version` also makes each status event's dedup key unique.
 */
export const bulkPaymentJobs = pgTable(
  'bulk_payment_jobs',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    status: text('status').$type<BulkJobStatus>().notNull(),
    /** json, csv or xlsx */
    source: text('source').notNull(),
    fileName: text('file_name'),
    defaults: jsonb('defaults').$type<Record<string, unknown>>().notNull().default({}),
    createMissingUsers: boolean('create_missing_users').notNull().default(false),
    warnings: jsonb('warnings').$type<string[]>().notNull().default([]),
    /** The input columns in file order (results.csv repeats them). */
    columns: jsonb('columns').$type<string[]>().notNull().default([]),
    /** The dashboard account that created the job (null for API credentials). */
    createdByAccountId: uuid('created_by_account_id'),
    cancelCreatedLinks: boolean('cancel_created_links').notNull().default(false),
    /** Set when created links' pending intents still have to be canceled (worker picks it up). */
    cancelLinksDueAt: ts('cancel_links_due_at'),
    version: integer('version').notNull().default(1),
    previewExpiresAt: ts('preview_expires_at'),
    confirmedAt: ts('confirmed_at'),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
    canceledAt: ts('canceled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('bulk_payment_jobs_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('bulk_payment_jobs_client_status_idx').on(t.clientId, t.status, desc(t.createdAt)),
    index('bulk_payment_jobs_active_idx')
      .on(t.status, t.updatedAt)
      .where(sql`${t.status} in ('queued', 'processing')`),
    index('bulk_payment_jobs_preview_expiry_idx')
      .on(t.previewExpiresAt)
      .where(sql`${t.status} = 'previewed'`),
    index('bulk_payment_jobs_cancel_links_idx')
      .on(t.cancelLinksDueAt)
      .where(sql`${t.cancelLinksDueAt} is not null`),
  ],
);
