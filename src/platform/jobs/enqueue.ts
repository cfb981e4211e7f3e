/** Writes a job in the caller's transaction, so the work exists exactly when the change commits. */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Clock } from '../../shared/clock';
import { newId } from '../../shared/ids';
import { DEFAULT_MAX_ATTEMPTS, type JobDefinition } from './define';

export interface NewJob<P extends Record<string, unknown>> {
  payload: P;
  /** Not before this time (a timer); default now. */
  runAt?: Date;
  /** A second enqueue with the same kind and key is a no-op (while the first is kept: see retention). */
  dedupeKey?: string;
  clientId?: string | null;
}

/** Enqueues one job of `def`; returns false when a job with the same dedupe key already exists. */
export async function enqueueJob<P extends Record<string, unknown>>(
  tx: DbOrTx,
  clock: Clock,
  def: Pick<JobDefinition<P>, 'kind' | 'maxAttempts'>,
  job: NewJob<P>,
): Promise<boolean> {
  return (await enqueueJobId(tx, clock, def, job)) !== null;
}

/** Enqueues one job of `def`; returns its id (for `runJobsNow` after the commit), or null on a dedupe. */
export async function enqueueJobId<P extends Record<string, unknown>>(
  tx: DbOrTx,
  clock: Clock,
  def: Pick<JobDefinition<P>, 'kind' | 'maxAttempts'>,
  job: NewJob<P>,
): Promise<string | null> {
  const now = clock.now();
  const result = await tx.execute(sql`
    insert into jobs (id, kind, payload, client_id, dedupe_key, status, attempts, max_attempts, run_at, created_at, updated_at)
    values (${newId()}, ${def.kind}, ${JSON.stringify(job.payload)}::jsonb, ${job.clientId ?? null},
            ${job.dedupeKey ?? null}, 'pending', 0, ${def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS},
            ${job.runAt ?? now}, ${now}, ${now})
    on conflict (kind, dedupe_key) where dedupe_key is not null do nothing
    returning id`);
  return rowsOf<{ id: string }>(result)[0]?.id ?? null;
}

/** Enqueues several jobs of one kind in one statement (no dedupe keys); returns their ids. */
export async function enqueueJobs<P extends Record<string, unknown>>(
  tx: DbOrTx,
  clock: Clock,
  def: Pick<JobDefinition<P>, 'kind' | 'maxAttempts'>,
  jobs: readonly Omit<NewJob<P>, 'dedupeKey'>[],
): Promise<string[]> {
  if (jobs.length === 0) return [];
  const now = clock.now();
  const rows = jobs.map(
    (
      job,
    ) => sql`(${newId()}, ${def.kind}, ${JSON.stringify(job.payload)}::jsonb, ${job.clientId ?? null}::uuid,
      'pending', 0, ${def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS}, ${job.runAt ?? now}::timestamptz,
      ${now}::timestamptz, ${now}::timestamptz)`,
  );
  const result = await tx.execute(sql`
    insert into jobs (id, kind, payload, client_id, status, attempts, max_attempts, run_at, created_at, updated_at)
    values ${sql.join(rows, sql`, `)}
    returning id`);
  return rowsOf<{ id: string }>(result).map((r) => r.id);
}
