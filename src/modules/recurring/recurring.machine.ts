/**
 * The recurring-payment status machine (named-areas.md section 5, "Recurring payment status"): the
 * only place that decides a definition's status. Persistence is compare-and-set on (status, version)
 * in recurring.transitions.ts.
 */
import { badRequest } from '../../shared/errors';
import { RM } from './recurring.messages';

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

export const TERMINAL_RECURRING_STATUSES = [
  'completed',
  'canceled',
  'revoked',
  'authorization_failed',
  'expired',
] as const satisfies readonly RecurringStatus[];

export const isTerminalRecurring = (s: string): boolean =>
  (TERMINAL_RECURRING_STATUSES as readonly string[]).includes(s);

/** One entry per row of the table (the POST row is the insert). */
export const RECURRING_TRANSITIONS = {
  /** The payer authorizes at the bank (bank notification): the first run is scheduled. */
  authorize: { from: ['pending_authorization'], to: 'active' },
  /** The payer rejects, or the bank fails. */
  authorization_fail: { from: ['pending_authorization'], to: 'authorization_failed' },
  /** The authorization link expires. */
  authorization_expire: { from: ['pending_authorization'], to: 'expired' },
  /** POST …/pause: runs that fall due are skipped. */
  pause: { from: ['active'], to: 'paused' },
  /** POST …/resume, or resume_at reached. */
  resume: { from: ['paused'], to: 'active' },
  /** POST …/cancel: open runs canceled, the mandate revoked at the bank. */
  cancel: { from: ['active', 'paused', 'pending_authorization'], to: 'canceled' },
  /** The bank reports the mandate revoked by the payer: open runs canceled. */
  revoke: { from: ['active', 'paused'], to: 'revoked' },
  /** end_date or max_runs reached and the last run final: the mandate is revoked at the bank. */
  complete: { from: ['active'], to: 'completed' },
  /** The mandate's valid_to passes. */
  expire: { from: ['active', 'paused'], to: 'expired' },
} as const satisfies Record<string, { from: readonly RecurringStatus[]; to: RecurringStatus }>;
export type RecurringTrigger = keyof typeof RECURRING_TRANSITIONS;

export function canApplyRecurring(trigger: RecurringTrigger, from: string): boolean {
  return (RECURRING_TRANSITIONS[trigger].from as readonly string[]).includes(from);
}

/** Writes on a terminal definition: the spec's 400; a refused move otherwise names the status. */
export function assertRecurringTransition(trigger: RecurringTrigger, from: string): RecurringStatus {
  if (isTerminalRecurring(from)) throw badRequest(RM.terminal(from));
  if (!canApplyRecurring(trigger, from)) throw badRequest(RM.actionNotAllowed(from));
  return RECURRING_TRANSITIONS[trigger].to;
}

export function assertRecurringWritable(status: string): void {
  if (isTerminalRecurring(status)) throw badRequest(RM.terminal(status));
}

/** The mandate's own status shown under `mandate.status`. */
export const MANDATE_STATUSES = [
  'awaiting_authorization',
  'authorized',
  'rejected',
  'revoked',
  'expired',
] as const;
export type MandateStatus = (typeof MANDATE_STATUSES)[number];
