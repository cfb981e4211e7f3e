/**
 * Timers: a one-shot due time of a row (a link's expiry, a ticket's auto-close, an invoice's due
 * date) is a job row of the `jobs` table, written in the transaction that sets the time, with the
 * row's id as dedupe key: one job per (kind, row), whatever the number of times the time is set.
 * See docs/platform.md, "Timers".
 *
 * - `setTimer` writes the job or moves it: an existing job of that kind and key (pending, done, dead,
 *   or running) becomes pending at the new time. A run in flight then cannot record its outcome
 *   (the runner's completion is compare-and-set on status running and the attempt), so the moved
 *   timer runs at its new time; attempts never go back, `max_attempts` grows instead.
 * - `cancelTimer` removes a pending timer when its row reaches a final state before the time.
 * - The handler (`fire`) re-reads the row under lock and acts only when it is still due; a timer that
 *   was moved, or whose row became final, is a no-op when it runs. It reports whether it acted.
 * - `runDueTimers` runs the due jobs of some timer kinds at once (the features' sweep functions,
 *   kept for tests, the CLI and benches) and returns how many acted; it first brings forward the
 *   timers of rows whose due time is already past (a time changed by hand in the database).
 */
import { type SQL, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { DEFAULT_MAX_ATTEMPTS, type JobContext, type JobDefinition } from './define';
import { jobRegistry, NO_HANDLER_ERROR, runDueJobs } from './runner';
import { setTimer } from './timer-rows';

export {
  cancelTimer,
  cancelTimers,
  setTimer,
  setTimers,
  type TimerRef,
  timerRef,
} from './timer-rows';

export interface TimerDefinition<P extends Record<string, unknown>> extends JobDefinition<P> {
  /** What staff read for this kind in a list of jobs ("Payment link expiry"). */
  label: string;
  /** The dedupe key of the timer of `payload` (the row it is about). */
  keyOf(payload: P): string;
  fire(deps: Deps, payload: P, ctx: JobContext): Promise<boolean>;
  /** See `TimerSpec.backfill`. */
  backfill?: (deps: Pick<Deps, 'config'>) => SQL;
}

export interface TimerSpec<P extends Record<string, unknown>> {
  kind: string;
  label: string;
  keyOf(payload: P): string;
  maxAttempts?: number;
  backoffSeconds?: readonly number[];
  /**
   * Re-reads the row under lock and acts only when it is still due; true when it acted. Throwing
   * retries with the backoff, as any job.
   */
  fire(deps: Deps, payload: P, ctx: JobContext): Promise<boolean>;
  /**
   * The rows whose due time was set before this timer was a job, as a select of
   * `(key text, payload jsonb, client_id uuid, run_at timestamptz)` over the rows still due: the
   * backfill job gives each a timer (see `timersBackfillJob`).
   */
  backfill?: (deps: Pick<Deps, 'config'>) => SQL;
}

/** Types a timer and makes its job definition (`run` calls `fire`). */
export function defineTimer<P extends Record<string, unknown>>(spec: TimerSpec<P>): TimerDefinition<P> {
  return {
    kind: spec.kind,
    label: spec.label,
    keyOf: spec.keyOf,
    maxAttempts: spec.maxAttempts,
    backoffSeconds: spec.backoffSeconds,
    fire: spec.fire,
    backfill: spec.backfill,
    run: async (deps, payload, ctx) => {
      await spec.fire(deps, payload, ctx);
    },
  };
}

/**
 * Rows whose due time is now past but whose timer is later or missing (a due time moved by hand in
 * the database, a row of the previous release) get their timer due now. Only the features' sweep
 * functions call this (tests, the CLI): the runner trusts the timers.
 */
async function pullForward(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  def: TimerDefinition<never>,
): Promise<void> {
  if (!def.backfill) return;
  const now = deps.clock.now();
  await deps.db.execute(sql`
    insert into jobs (id, kind, payload, client_id, dedupe_key, status, attempts, max_attempts, run_at, created_at, updated_at)
    select gen_random_uuid(), ${def.kind}, r.payload, r.client_id, r.key, 'pending', 0,
           ${def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS}, r.run_at, ${now}, ${now}
      from (${def.backfill(deps)}) r
     where r.run_at <= ${now}
    on conflict (kind, dedupe_key) where dedupe_key is not null do update
       set run_at = excluded.run_at, status = 'pending', updated_at = excluded.updated_at,
           max_attempts = greatest(jobs.max_attempts, jobs.attempts + excluded.max_attempts)
     where jobs.status = 'pending' and jobs.run_at > excluded.run_at`);
}

/**
 * Runs the due timers of `defs` until none is left (as the jobs runner would, on the injected clock);
 * returns how many acted (a timer whose row was no longer due counts 0).
 */
export async function runDueTimers(deps: Deps, defs: readonly TimerDefinition<never>[]): Promise<number> {
  let acted = 0;
  const counting = (defs as unknown as readonly TimerDefinition<Record<string, unknown>>[]).map(
    (def): JobDefinition => ({
      ...def,
      run: async (dd, payload, ctx) => {
        if (await def.fire(dd, payload, ctx)) acted++;
      },
    }),
  );
  const registry = jobRegistry(counting);
  for (const def of defs) await pullForward(deps, def);
  for (let i = 0; i < 1000; i++) {
    if ((await runDueJobs(deps, registry, { onlyDefinedKinds: true, batch: 100 })) === 0) break;
  }
  return acted;
}

/**
 * The backfill: rows whose due time was set before their timer was a job (written by the previous
 * release, or by its nodes still running during a rolling deploy) get one. Each timer kind's
 * `backfill` select inserts the missing jobs (an existing timer is never moved by it). Idempotent;
 * `enqueueTimersBackfill` runs it at every start and once more an hour later, which covers the rows
 * the previous release's nodes write until the rollout ends.
 *
 * One exception to "never moved": a timer of a kind new in this release that a node of the previous
 * release claimed during the rollout was buried by it as dead (`no handler for job kind …`, never
 * run); while its row is still due it is made pending again at the row's time. Other dead timers
 * (a handler that failed to the end) stay dead.
 */
export function timersBackfillJob(timers: readonly TimerDefinition<never>[]): JobDefinition {
  return {
    kind: 'timers.backfill',
    async run(deps) {
      for (const def of timers) {
        if (!def.backfill) continue;
        const now = deps.clock.now();
        const result = await deps.db.execute(sql`
          insert into jobs (id, kind, payload, client_id, dedupe_key, status, attempts, max_attempts, run_at, created_at, updated_at)
          select gen_random_uuid(), ${def.kind}, r.payload, r.client_id, r.key, 'pending', 0,
                 ${def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS}, r.run_at, ${now}, ${now}
            from (${def.backfill(deps)}) r
          on conflict (kind, dedupe_key) where dedupe_key is not null do update
             set status = 'pending', run_at = excluded.run_at, last_error = null, finished_at = null,
                 max_attempts = jobs.attempts + excluded.max_attempts, updated_at = excluded.updated_at
           where jobs.status = 'dead' and jobs.last_error = ${`${NO_HANDLER_ERROR} ${def.kind}`}
          returning id`);
        const added = rowsOf(result).length;
        if (added > 0) deps.log.info({ kind: def.kind, added }, 'timers backfilled');
      }
    },
  };
}

/** At start: the backfill now, and again in an hour (the end of a rolling deploy). */
export async function enqueueTimersBackfill(deps: Pick<Deps, 'db' | 'clock'>): Promise<void> {
  const now = deps.clock.now();
  const backfill = defineTimer<{ pass: string }>({
    kind: 'timers.backfill',
    label: 'Timers backfill',
    keyOf: (p) => `timers.backfill:${p.pass}`,
    fire: async () => false,
  });
  await setTimer(deps.db, deps.clock, backfill, { payload: { pass: 'start' }, runAt: now });
  await setTimer(deps.db, deps.clock, backfill, {
    payload: { pass: 'rollout' },
    runAt: new Date(now.getTime() + 3_600_000),
  });
}
