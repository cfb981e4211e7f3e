/**
 * The jobs runner: one worker that claims due jobs (FOR UPDATE SKIP LOCKED, the claim's lease written
 * as run_at) and runs each with its definition, outside any transaction. An idle tick is one
 * statement. Success marks the job done; a failure schedules the next attempt with the definition's
 * backoff, or makes the job dead after its last attempt. Completions are compare-and-set on
 * (id, attempts), so a runner whose lease lapsed cannot overwrite the run that re-claimed the job.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { loopWorker, type Worker } from '../../workers/loop';
import { backoffSeconds, type JobDefinition, PermanentJobError } from './define';
import { RetryNotBeforeError } from './retry-not-before';

export interface JobRunnerOptions {
  pollMs: number;
  /** The longest wait of an idle runner (it backs off from pollMs while ticks find nothing). */
  idleMaxMs?: number;
  /** Jobs claimed per tick, run concurrently. */
  batch?: number;
  /** A job whose runner died is claimed again after this long. */
  leaseSeconds?: number;
}

interface ClaimedJob {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

/** Claims up to `limit` due jobs (of `kinds` only, when given): attempts + 1, status running, run_at = lease end. */
export async function claimDueJobs(
  deps: Pick<Deps, 'db' | 'clock'>,
  limit: number,
  leaseSeconds: number,
  kinds?: readonly string[],
) {
  const now = deps.clock.now();
  const only = kinds
    ? sql`and kind in (${sql.join(
        kinds.map((k) => sql`${k}`),
        sql`, `,
      )})`
    : sql``;
  const result = await deps.db.execute(sql`
    update jobs j set status = 'running', attempts = j.attempts + 1,
           run_at = ${addSeconds(now, leaseSeconds)}, updated_at = ${now}
      from (select id from jobs
             where status in ('pending', 'running') and run_at <= ${now} ${only}
             order by run_at, id limit ${limit}
             for update skip locked) due
     where j.id = due.id
    returning j.id, j.kind, j.payload, j.attempts, j.max_attempts`);
  return rowsOf<ClaimedJob>(result);
}

function errorText(err: unknown): string {
  const text =
    err instanceof Error
      ? err.cause instanceof Error
        ? `${err.message}: ${err.cause.message}`
        : err.message
      : String(err);
  return text.slice(0, 1000);
}

/**
 * Claims the given jobs when they are due and pending (a job another runner holds, or one that has
 * already run, is left alone): the same claim as a tick, by id.
 */
async function claimJobsById(deps: Pick<Deps, 'db' | 'clock'>, ids: readonly string[], leaseSeconds: number) {
  const now = deps.clock.now();
  const result = await deps.db.execute(sql`
    update jobs j set status = 'running', attempts = j.attempts + 1,
           run_at = ${addSeconds(now, leaseSeconds)}, updated_at = ${now}
      from (select id from jobs
             where id in (${sql.join(
               ids.map((id) => sql`${id}::uuid`),
               sql`, `,
             )}) and status = 'pending' and run_at <= ${now}
             for update skip locked) due
     where j.id = due.id
    returning j.id, j.kind, j.payload, j.attempts, j.max_attempts`);
  return rowsOf<ClaimedJob>(result);
}

/**
 * The error a runner records when it claims a job of a kind it has no handler for (it buries it as
 * dead). A node of the previous release does so to a new kind during a rolling deploy; the timers'
 * backfill revives such timers (timers.ts). Keep the text: that release's nodes write it.
 */
export const NO_HANDLER_ERROR = 'no handler for job kind';

/** Runs one claimed job and records its outcome. */
async function runJob(deps: Deps, defs: ReadonlyMap<string, JobDefinition>, job: ClaimedJob): Promise<void> {
  const def = defs.get(job.kind);
  const lastAttempt = job.attempts >= job.max_attempts;
  try {
    if (!def) throw new PermanentJobError(`${NO_HANDLER_ERROR} ${job.kind}`);
    const runNow = (ids: readonly (string | null)[]) => runClaimedNow(deps, defs, ids);
    await def.run(deps, job.payload, { jobId: job.id, attempt: job.attempts, lastAttempt, runNow });
    const now = deps.clock.now();
    await deps.db.execute(sql`
      update jobs set status = 'done', finished_at = ${now}, updated_at = ${now}, last_error = null
       where id = ${job.id} and status = 'running' and attempts = ${job.attempts}`);
  } catch (err) {
    const message = errorText(err);
    const dead = lastAttempt || err instanceof PermanentJobError;
    const now = deps.clock.now();
    const backoff = addSeconds(now, backoffSeconds(def ?? {}, job.attempts));
    const asked = err instanceof RetryNotBeforeError ? err.notBefore : null;
    const next = dead ? now : asked && asked > backoff ? asked : backoff;
    const updated = await deps.db.execute(sql`
      update jobs set status = ${dead ? 'dead' : 'pending'}, run_at = ${next}, last_error = ${message},
             updated_at = ${now}, finished_at = ${dead ? now : null}
       where id = ${job.id} and status = 'running' and attempts = ${job.attempts}
      returning id`);
    deps.log.warn({ job: job.id, kind: job.kind, attempt: job.attempts, dead, err: message }, 'job failed');
    if (dead && def?.onDead && rowsOf(updated).length > 0) {
      await def
        .onDead(deps, job.payload, message)
        .catch((e) =>
          deps.log.error({ job: job.id, kind: job.kind, err: errorText(e) }, 'job onDead failed'),
        );
    }
  }
}

/** One tick: claim a batch and run it; returns how many jobs ran (positive: go again at once). */
export async function runDueJobs(
  deps: Deps,
  defs: ReadonlyMap<string, JobDefinition>,
  opts: Pick<JobRunnerOptions, 'batch' | 'leaseSeconds'> & { onlyDefinedKinds?: boolean } = {},
): Promise<number> {
  const kinds = opts.onlyDefinedKinds ? [...defs.keys()] : undefined;
  const claimed = await claimDueJobs(deps, opts.batch ?? 10, opts.leaseSeconds ?? 300, kinds);
  await Promise.all(claimed.map((job) => runJob(deps, defs, job)));
  return claimed.length;
}

/**
 * Runs jobs that a request just committed, at once and in the caller's flow (their first attempt),
 * so the work goes out as fast as it did before it was a job. A failure leaves the job to the
 * runner's backoff; nothing is lost when this never runs (a crash right after the commit).
 */
export async function runJobsNow(
  deps: Deps,
  definitions: readonly JobDefinition<never>[],
  ids: readonly (string | null)[],
): Promise<void> {
  if (ids.every((id) => id === null)) return;
  await runClaimedNow(deps, jobRegistry(definitions), ids);
}

async function runClaimedNow(
  deps: Deps,
  defs: ReadonlyMap<string, JobDefinition>,
  ids: readonly (string | null)[],
): Promise<void> {
  const wanted = ids.filter((id): id is string => id !== null);
  if (wanted.length === 0) return;
  const claimed = await claimJobsById(deps, wanted, 300);
  // In enqueue order: a participant's invitation before the next one, as when they were sent inline.
  claimed.sort((a, b) => wanted.indexOf(a.id) - wanted.indexOf(b.id));
  for (const job of claimed) await runJob(deps, defs, job);
}

/** Indexes definitions by kind; two definitions of one kind are a wiring mistake. */
export function jobRegistry(definitions: readonly JobDefinition<never>[]): Map<string, JobDefinition> {
  const map = new Map<string, JobDefinition>();
  for (const def of definitions) {
    if (map.has(def.kind)) throw new Error(`job kind ${def.kind} is defined twice`);
    map.set(def.kind, def as unknown as JobDefinition);
  }
  return map;
}

export function createJobRunner(
  deps: Deps,
  definitions: readonly JobDefinition<never>[],
  opts: JobRunnerOptions,
): Worker {
  const defs = jobRegistry(definitions);
  // Only the kinds this node knows: during a rolling deploy a node of the previous release must leave
  // a new release's jobs (a new timer kind, say) to the nodes that can run them, instead of claiming
  // them and marking them dead for want of a handler.
  return loopWorker(
    'jobs',
    opts.pollMs,
    () => runDueJobs(deps, defs, { ...opts, onlyDefinedKinds: true }),
    deps.log,
    {
      idleMaxMs: opts.idleMaxMs ?? Math.max(opts.pollMs, 1000),
    },
  );
}

/** Done and dead jobs older than `days` are deleted (an indexed range delete). */
export async function purgeFinishedJobs(deps: Pick<Deps, 'db' | 'clock'>, days: number): Promise<number> {
  const cutoff = addSeconds(deps.clock.now(), -days * 86400);
  const result = await deps.db.execute(sql`
    delete from jobs where id in (
      select id from jobs where finished_at is not null and finished_at < ${cutoff} limit 1000)
    returning id`);
  return rowsOf(result).length;
}
