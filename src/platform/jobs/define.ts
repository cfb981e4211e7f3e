/**
 * A job: work owed after a commit, run by the jobs runner outside any transaction, at least once.
 * Handlers must be idempotent (a runner that dies after the work but before recording it runs the
 * job again once its lease passes). See docs/platform.md, "Jobs".
 */
import type { Deps } from '../../deps';

export interface JobContext {
  jobId: string;
  /** 1 on the first run. */
  attempt: number;
  /** True when this is the last attempt allowed: a failure now makes the job dead. */
  lastAttempt: boolean;
  /** Runs jobs this job just committed at once (their first attempt), like `runJobsNow`. */
  runNow(ids: readonly (string | null)[]): Promise<void>;
}

export interface JobDefinition<P extends Record<string, unknown> = Record<string, unknown>> {
  /** `<feature>.<what>`, e.g. `contracts.send_invitation`. */
  kind: string;
  /** Attempts before the job is dead (visible to staff with its last error). Default 10. */
  maxAttempts?: number;
  /** Seconds before each retry; the last value repeats. Default 5, 15, 60, 300, 900, 3600. */
  backoffSeconds?: readonly number[];
  /** Throw to retry later (the message is kept as last_error); throw PermanentJobError to stop now. */
  run(deps: Deps, payload: P, ctx: JobContext): Promise<void>;
  /** Called once when the job dies (after its last attempt or a PermanentJobError), outside any transaction. */
  onDead?(deps: Deps, payload: P, error: string): Promise<void>;
}

export { DEFAULT_MAX_ATTEMPTS } from './timer-rows';
export const DEFAULT_BACKOFF_SECONDS: readonly number[] = [5, 15, 60, 300, 900, 3600];

/**
 * Every email owed after a commit retries alike: 6 attempts, 1 min, 5 min, 15 min, 1 h and 3 h
 * apart (about 4 h 20 min from the first to the last), then the job is dead.
 */
export const EMAIL_RETRY = { maxAttempts: 6, backoffSeconds: [60, 300, 900, 3600, 10800] } as const;

/** A failure that retrying cannot cure (bad payload, resource gone): the job dies at once. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/** Types a job definition (the payload type flows to `run`). */
export function defineJob<P extends Record<string, unknown>>(def: JobDefinition<P>): JobDefinition<P> {
  return def;
}

/** The wait before retry number `attempt` (1-based count of failed attempts so far). */
export function backoffSeconds(def: Pick<JobDefinition, 'backoffSeconds'>, failedAttempts: number): number {
  const delays = def.backoffSeconds?.length ? def.backoffSeconds : DEFAULT_BACKOFF_SECONDS;
  return delays[Math.min(Math.max(failedAttempts, 1), delays.length) - 1]!;
}
