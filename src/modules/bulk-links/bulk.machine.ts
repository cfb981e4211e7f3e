/**
 * The bulk job and row status machines (named-areas.md section 7): the only place that decides a
 * bulk status. Persistence is compare-and-set (bulk.repo.ts); refused job actions answer 400.
 */
import { badRequest } from '../../shared/errors';
import { BM } from './bulk.messages';

export const JOB_STATUSES = [
  'previewed',
  'queued',
  'processing',
  'completed',
  'completed_with_errors',
  'canceled',
  'expired',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** completed_with_errors waits for a retry; the rest of these never move again. */
export const TERMINAL_JOB_STATUSES = [
  'completed',
  'canceled',
  'expired',
] as const satisfies readonly JobStatus[];

/** Final for notifications: the job stopped working (completed_with_errors included). */
export const FINAL_JOB_STATUSES = [
  'completed',
  'completed_with_errors',
  'canceled',
  'expired',
] as const satisfies readonly JobStatus[];

/** The job table, one entry per trigger. */
export const JOB_TRANSITIONS = {
  confirm: { from: ['previewed'], to: 'queued' },
  expire_preview: { from: ['previewed'], to: 'expired' },
  claim: { from: ['queued'], to: 'processing' },
  finish_clean: { from: ['processing'], to: 'completed' },
  finish_with_errors: { from: ['processing'], to: 'completed_with_errors' },
  retry: { from: ['completed_with_errors'], to: 'processing' },
  cancel: { from: ['previewed', 'queued', 'processing'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly JobStatus[]; to: JobStatus }>;
export type JobTrigger = keyof typeof JOB_TRANSITIONS;

/** Initial status of a new job: with preview / without. */
export const initialJobStatus = (preview: boolean): JobStatus => (preview ? 'previewed' : 'queued');

export function canApplyJob(trigger: JobTrigger, from: JobStatus): boolean {
  return (JOB_TRANSITIONS[trigger].from as readonly JobStatus[]).includes(from);
}

/** The target status, or the spec's 400 naming the current status. */
export function assertJobTransition(trigger: JobTrigger, from: JobStatus): JobStatus {
  if (!canApplyJob(trigger, from)) throw badRequest(BM.actionNotAllowed(from));
  return JOB_TRANSITIONS[trigger].to;
}

export const isFinalJobStatus = (s: JobStatus): boolean =>
  (FINAL_JOB_STATUSES as readonly string[]).includes(s);

export const ROW_STATUSES = ['valid', 'invalid', 'pending', 'created', 'failed', 'canceled'] as const;
export type RowStatus = (typeof ROW_STATUSES)[number];

/**
 * The row table: valid/invalid -> pending -> created or failed; failed/invalid -> pending on retry.
 * Canceling the job cancels every row that has not produced a link (its `errors` stay readable).
 */
export const ROW_TRANSITIONS = {
  /** Job queued (at creation without preview, or on confirm): valid rows wait for the worker. */
  queue: { from: ['valid'], to: 'pending' },
  created: { from: ['pending'], to: 'created' },
  failed: { from: ['pending'], to: 'failed' },
  /** Retry (invalid only once rows_patch made it valid). */
  retry: { from: ['failed', 'invalid'], to: 'pending' },
  cancel: { from: ['valid', 'invalid', 'pending', 'failed'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly RowStatus[]; to: RowStatus }>;
export type RowTrigger = keyof typeof ROW_TRANSITIONS;

export function canApplyRow(trigger: RowTrigger, from: RowStatus): boolean {
  return (ROW_TRANSITIONS[trigger].from as readonly RowStatus[]).includes(from);
}

/** A row that rows_patch may change and retry may pick. */
export const isRetryableRow = (s: RowStatus): boolean => s === 'failed' || s === 'invalid';

/** After processing: every row final; completed when none failed or invalid, else completed_with_errors. */
export function finishTrigger(counts: { failed: number; invalid: number }): JobTrigger {
  return counts.failed + counts.invalid > 0 ? 'finish_with_errors' : 'finish_clean';
}
