import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const JOB_STATUSES = ['pending', 'running', 'done', 'dead'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Durable work owed after a commit (emails, provider calls, sealing) and timers that can be jobs:
 * written in the caller's transaction, claimed with FOR UPDATE SKIP LOCKED under a lease, retried
 * with backoff, the last error kept (docs/platform.md, "Jobs"). A claimed job's `run_at` is its
 * lease end, so a runner that dies mid-job gives it back by simply letting the lease pass.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: idColumn('id'),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** The client the work is for, when there is one (staff views filter by it). */
    clientId: uuid('client_id'),
    /** A second enqueue with the same kind and key is a no-op. */
    dedupeKey: text('dedupe_key'),
    status: text('status').$type<JobStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    /** Due time while pending; lease end while running. */
    runAt: ts('run_at').notNull(),
    lastError: text('last_error'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    index('jobs_due_idx').on(t.runAt, t.id).where(sql`status in ('pending', 'running')`),
    uniqueIndex('jobs_dedupe_uq').on(t.kind, t.dedupeKey).where(sql`dedupe_key is not null`),
    index('jobs_finished_idx').on(t.finishedAt).where(sql`finished_at is not null`),
    index('jobs_client_idx').on(t.clientId, t.createdAt).where(sql`client_id is not null`),
  ],
);
