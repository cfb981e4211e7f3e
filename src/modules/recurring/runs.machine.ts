/**
 * The run status machine: the only place that decides a run's status, and the retry rules' pure
 * parts (what is retryable, whether attempts are left).
 */
import { RECURRING_RUN_STATUSES, type RecurringRunStatus } from '../../db/schema/recurring-runs';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { RecurringMessages } from './recurring.messages';

export const RUN_STATUSES = RECURRING_RUN_STATUSES;
export type RunStatus = RecurringRunStatus;

/** Final for scheduling: the next scheduled run is created once the previous one is one of these. */
export const FINAL_RUN_STATUSES = [
  'succeeded',
  'failed',
  'skipped',
  'canceled',
] as const satisfies readonly RunStatus[];
export const isFinalRun = (s: RunStatus): boolean => (FINAL_RUN_STATUSES as readonly string[]).includes(s);

/** One entry per row of the table (the two "(none)" rows are inserts: `schedule` and `on_demand`). */
export const RUN_TRANSITIONS = {
  /** scheduled_for reached, limits ok: attempt 1, transaction created. */
  start: { from: ['scheduled'], to: 'processing' },
  /** due while paused / POST …/skip. */
  skip: { from: ['scheduled'], to: 'skipped' },
  /** scheduled_for reached but the amount exceeds the limits: failed with mandate_limit_exceeded, no transaction. */
  limit_exceeded: { from: ['scheduled'], to: 'failed' },
  /** Transaction success. */
  succeed: { from: ['processing'], to: 'succeeded' },
  /** Transaction failed, expired or canceled; retryable; auto_retry on; attempts left. */
  schedule_retry: { from: ['processing'], to: 'retry_scheduled' },
  /** Any other failure. */
  fail: { from: ['processing'], to: 'failed' },
  /** next_retry_at reached: auto_retry attempt. */
  auto_retry: { from: ['retry_scheduled'], to: 'processing' },
  /** POST …/retry: manual_retry attempt, next_retry_at cleared. */
  manual_retry: { from: ['retry_scheduled', 'failed'], to: 'processing' },
  /** The recurring payment is canceled, revoked or expired. */
  cancel: { from: ['scheduled', 'retry_scheduled'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: RunStatus }>;
export type RunTrigger = keyof typeof RUN_TRANSITIONS;

export const OPEN_RUN_STATUSES = RUN_TRANSITIONS.cancel.from;

/** Final for scheduling is not terminal: a failed run may still be retried by hand. */
export const runMachine = defineMachine({
  name: 'recurring run',
  statuses: RUN_STATUSES,
  transitions: RUN_TRANSITIONS,
  terminal: ['succeeded', 'skipped', 'canceled'],
  refused: (_t, from) => badRequest(RecurringMessages.runActionNotAllowed(from)),
});

export const canApplyRun = runMachine.can;
export const assertRunTransition = runMachine.assert;

export const FAILURE_REASONS = [
  'insufficient_funds',
  'bank_unavailable',
  'bank_rejected',
  'mandate_revoked',
  'mandate_limit_exceeded',
  /**
   * The bank never gave a final status (lost creation answer, or a payment still processing when its
   * link expired): money may have moved, so it is never retried, automatically or by hand, while the
   * payment is held for manual review.
   */
  'outcome_unknown',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Only insufficient funds and an unavailable bank are retried automatically. */
export const isRetryable = (r: FailureReason): boolean =>
  r === 'insufficient_funds' || r === 'bank_unavailable';

/**
 * The failure reason of a failed, expired or canceled transaction, from its detail status:
 * insufficient funds; a bank that timed out or failed technically (retryable); anything else the
 * bank refused.
 */
export function failureReasonOf(providerStatus: string | null, txStatus: string): FailureReason {
  if (providerStatus === 'rejected_insufficient_funds') return 'insufficient_funds';
  // Failed by the spec's mapping, but the bank had completed it: money most likely moved.
  if (providerStatus === 'settlement_incomplete') return 'outcome_unknown';
  if (txStatus === 'expired' || ['failed', 'no_final_status'].includes(providerStatus ?? ''))
    return 'bank_unavailable';
  return 'bank_rejected';
}

/**
 * After a failed attempt: the delay (hours) of the next automatic retry, or null for none.
 * "Attempts left" = fewer than maxAttempts attempts so far and a delay remaining in the policy.
 */
export function autoRetryDelayHours(opts: {
  reason: FailureReason;
  autoRetry: boolean;
  retryAfterHours: readonly number[];
  autoRetriesUsed: number;
  attemptsSoFar: number;
  maxAttempts: number;
}): number | null {
  if (!isRetryable(opts.reason) || !opts.autoRetry) return null;
  if (opts.attemptsSoFar >= opts.maxAttempts) return null;
  return opts.retryAfterHours[opts.autoRetriesUsed] ?? null;
}
