/**
 * The recurring-payment status machine: the only place that decides a definition's status. Moves
 * go through the platform's `transition` with a compare-and-set on (status, version)
 * (recurring.transitions.ts).
 */
import {
  MANDATE_STATUSES,
  type MandateStatus,
  RECURRING_STATUSES,
  type RecurringStatus,
} from '../../db/schema/recurring-payments';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { RecurringMessages } from './recurring.messages';

export { MANDATE_STATUSES, type MandateStatus, RECURRING_STATUSES, type RecurringStatus };

export const TERMINAL_RECURRING_STATUSES = [
  'completed',
  'canceled',
  'revoked',
  'authorization_failed',
  'expired',
] as const satisfies readonly RecurringStatus[];

export const isTerminalRecurring = (s: RecurringStatus): boolean =>
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

/** Writes on a terminal definition: the terminal 400; a refused move otherwise names the status. */
export const recurringMachine = defineMachine({
  name: 'recurring payment',
  statuses: RECURRING_STATUSES,
  transitions: RECURRING_TRANSITIONS,
  terminal: TERMINAL_RECURRING_STATUSES,
  refused: (_t, from) =>
    badRequest(
      isTerminalRecurring(from) ? RecurringMessages.terminal(from) : RecurringMessages.actionNotAllowed(from),
    ),
});

export const canApplyRecurring = recurringMachine.can;
export const assertRecurringTransition = recurringMachine.assert;

export function assertRecurringWritable(status: RecurringStatus): void {
  if (isTerminalRecurring(status)) throw badRequest(RecurringMessages.terminal(status));
}
