/**
 * The refund status machine. `pending` is written and not yet handed to the network; the submit job
 * sets `submitted_at` (compare-and-set while pending) before it calls the network, so a cancel can
 * never race a refund the network may have taken. The table only: every move is written by
 * `moveRefund` (refunds.transitions.ts).
 */
import { REFUND_STATUSES, type RefundStatus, type refunds } from '../../db/schema/index';
import { defineMachine, type TriggerOf } from '../../platform/machine';
import { conflict } from '../../shared/errors';
import { RefundMessages } from './refunds.messages';

export { REFUND_STATUSES, type RefundStatus };
export type RefundRow = typeof refunds.$inferSelect;

export const REFUND_TERMINAL: readonly RefundStatus[] = ['succeeded', 'failed', 'canceled'];

export const REFUND_TRANSITIONS = {
  /** The network took the refund (it answered, or reported it under way). */
  submit: { from: ['pending'], to: 'processing' },
  /** The network refused it as it is (BankRefusedError): never sent again. */
  refuse: { from: ['pending'], to: 'failed' },
  /** The merchant canceled it before it was handed to the network. */
  cancel: { from: ['pending'], to: 'canceled' },
  /** The network reports the money sent back. */
  succeed: { from: ['processing'], to: 'succeeded' },
  /** The network reports the refund failed. */
  fail: { from: ['processing'], to: 'failed' },
} as const satisfies Record<string, { from: readonly RefundStatus[]; to: RefundStatus }>;
export type RefundTrigger = keyof typeof REFUND_TRANSITIONS;

export const refundMachine = defineMachine({
  name: 'refund',
  statuses: REFUND_STATUSES,
  transitions: REFUND_TRANSITIONS,
  terminal: REFUND_TERMINAL,
  refused: (trigger, from) =>
    conflict(trigger === 'cancel' ? RefundMessages.cannotCancel(from) : RefundMessages.notAllowed(from)),
});
export type RefundMachineTrigger = TriggerOf<typeof refundMachine>;

export const isRefundTerminal = refundMachine.isTerminal;
/** Statuses whose amount counts against the payment's refundable amount. */
export const holdsAmount = (s: RefundStatus) => s === 'pending' || s === 'processing' || s === 'succeeded';
/** Cancel is offered while the refund waits to be handed to the network. */
export const cancelable = (r: Pick<RefundRow, 'status' | 'submittedAt'>) =>
  r.status === 'pending' && r.submittedAt === null;
