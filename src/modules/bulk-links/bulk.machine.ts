/**
 * The bulk job and row status machines: the only place that decides a bulk status. A job moves
 * through the platform's `transition` (bulk.transitions.ts); rows move in batches, one statement per
 * table row (bulk.repo.ts `moveRows`). Refused job actions answer 400.
 */
import { BULK_JOB_STATUSES, type BulkJobStatus } from '../../db/schema/bulk-payment-jobs';
import { BULK_ROW_STATUSES, type BulkRowStatus } from '../../db/schema/bulk-payment-rows';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { BulkLinkMessages } from './bulk.messages';

export const JOB_STATUSES = BULK_JOB_STATUSES;
export type JobStatus = BulkJobStatus;

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

export const jobMachine = defineMachine({
  name: 'bulk job',
  statuses: JOB_STATUSES,
  transitions: JOB_TRANSITIONS,
  terminal: TERMINAL_JOB_STATUSES,
  refused: (_t, from) => badRequest(BulkLinkMessages.actionNotAllowed(from)),
});

export const canApplyJob = jobMachine.can;
/** The target status, or the 400 naming the current status. */
export const assertJobTransition = jobMachine.assert;

export const isFinalJobStatus = (s: JobStatus): boolean =>
  (FINAL_JOB_STATUSES as readonly string[]).includes(s);

export const ROW_STATUSES = BULK_ROW_STATUSES;
export type RowStatus = BulkRowStatus;

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

export const rowMachine = defineMachine({
  name: 'bulk row',
  statuses: ROW_STATUSES,
  transitions: ROW_TRANSITIONS,
  terminal: ['created', 'canceled'],
  refused: (_t, from) => badRequest(BulkLinkMessages.rowActionNotAllowed(from)),
});

export const canApplyRow = rowMachine.can;

/** A row that rows_patch may change and retry may pick. */
export const isRetryableRow = (s: RowStatus): boolean => s === 'failed' || s === 'invalid';

/** After processing: every row final; completed when none failed or invalid, else completed_with_errors. */
export function finishTrigger(counts: { failed: number; invalid: number }): JobTrigger {
  return counts.failed + counts.invalid > 0 ? 'finish_with_errors' : 'finish_clean';
}
