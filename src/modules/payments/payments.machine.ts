/**
 * The transaction status machine: the only place that decides a transaction's status.
 * - TRANSITIONS: the coarse moves of the transaction status table (anything else is blocked).
 * - PROVIDER_STATUS_MAP: the detail status (provider_status) -> coarse status table.
 * - decideProviderStatus: given the current status and a detail code, what happens.
 * Persistence (the platform's compare-and-set + timeline row + event) lives in status.service.ts.
 */
import { TRANSACTION_STATUSES, type TransactionStatus } from '../../db/schema/transactions';
import { defineMachine } from '../../platform/machine';
import { conflict } from '../../shared/errors';
import { PaymentMessages } from './payments.messages';

export { TRANSACTION_STATUSES, type TransactionStatus };

export const TERMINAL_STATUSES = [
  'success',
  'failed',
  'expired',
  'canceled',
] as const satisfies readonly TransactionStatus[];

export const RECONCILIATION_STATES = [
  'none',
  'awaiting_provider_confirmation',
  'manual_review_required',
] as const;
export type ReconciliationState = (typeof RECONCILIATION_STATES)[number];

export type TransitionTrigger =
  | 'bank_authentication_started'
  | 'link_ttl_elapsed'
  | 'canceled_before_checkout'
  | 'upstream_error'
  | 'bank_confirmed'
  | 'bank_rejected'
  | 'bank_authentication_timeout'
  | 'canceled_during_checkout';

export interface TransitionRow {
  from: TransactionStatus;
  to: TransactionStatus;
  trigger: TransitionTrigger;
  /** Human-readable status_reason written with the move. */
  reason: string;
}

/** The transaction status table, one entry per row. */
export const TRANSITIONS: readonly TransitionRow[] = [
  {
    from: 'pending',
    to: 'processing',
    trigger: 'bank_authentication_started',
    reason: 'Payer began bank authentication',
  },
  { from: 'pending', to: 'expired', trigger: 'link_ttl_elapsed', reason: 'Payment link expired' },
  {
    from: 'pending',
    to: 'canceled',
    trigger: 'canceled_before_checkout',
    reason: 'Canceled before checkout',
  },
  { from: 'pending', to: 'failed', trigger: 'upstream_error', reason: 'Upstream error before checkout' },
  { from: 'processing', to: 'success', trigger: 'bank_confirmed', reason: 'Bank confirmed the payment' },
  { from: 'processing', to: 'failed', trigger: 'bank_rejected', reason: 'Bank rejected the payment' },
  {
    from: 'processing',
    to: 'expired',
    trigger: 'bank_authentication_timeout',
    reason: 'Bank authentication timed out',
  },
  {
    from: 'processing',
    to: 'canceled',
    trigger: 'canceled_during_checkout',
    reason: 'Payer canceled during checkout',
  },
];

/** A move the table refuses is the state conflict a cancel of a finished payment answers (409). */
export const transactionMachine = defineMachine({
  name: 'transaction',
  statuses: TRANSACTION_STATUSES,
  transitions: TRANSITIONS,
  terminal: TERMINAL_STATUSES,
  refused: () => conflict(PaymentMessages.terminalCannotCancel),
});

export function findTransition(from: TransactionStatus, to: TransactionStatus): TransitionRow | undefined {
  return TRANSITIONS.find((t) => t.from === from && t.to === to);
}

export const canTransition = (from: TransactionStatus, to: TransactionStatus): boolean =>
  transactionMachine.triggerFor(from, to) !== null;

export const isTerminal = transactionMachine.isTerminal;
export const isTransactionStatus = transactionMachine.isStatus;

/** The detail status (provider_status) mapping: null = recorded on the timeline, no coarse change. */
export const PROVIDER_STATUS_MAP = {
  completed: 'success',
  settled: 'success',
  initiated: 'processing',
  awaiting_bank_authorization: 'processing',
  awaiting_redemption: 'processing',
  processing: 'processing',
  settling: 'processing',
  rejected: 'failed',
  rejected_insufficient_funds: 'failed',
  failed: 'failed',
  /**
   * The spec maps it to failed; Token.io sends it after the initiation completed ("Reconciliation has
   * failed": the money was not matched in the settlement account), so the money most likely left the
   * payer: the failure is held for manual review (mayHaveMoved) and never retried.
   */
  settlement_incomplete: 'failed',
  expired: 'expired',
  no_final_status: 'expired',
  declined: 'canceled',
  canceled: 'canceled',
  authorized: null,
  transfer_created: null,
  transfer_updated: null,
  refunded: null,
} as const satisfies Record<string, TransactionStatus | null>;

export type ProviderStatus = keyof typeof PROVIDER_STATUS_MAP;
export const PROVIDER_STATUSES = Object.keys(PROVIDER_STATUS_MAP) as ProviderStatus[];
/** Detail status stored for an upstream code we do not recognize (the raw code is never stored or exposed). */
export const UNKNOWN_PROVIDER_STATUS = 'unknown';
/**
 * Sandbox/network signal that a payment needs manual review: the status stays, an event with
 * previous == current status and reconciliation_state manual_review_required is emitted.
 */
export const MANUAL_REVIEW_SIGNAL = 'manual_review';

export function isProviderStatus(code: string): code is ProviderStatus {
  return Object.hasOwn(PROVIDER_STATUS_MAP, code);
}

/** Normalizes an upstream code: known codes as they are, anything else `unknown`. */
export function normalizeProviderStatus(code: string): ProviderStatus | typeof UNKNOWN_PROVIDER_STATUS {
  const c = code.trim().toLowerCase();
  return isProviderStatus(c) ? c : UNKNOWN_PROVIDER_STATUS;
}

export type Decision =
  /** Move the coarse status: timeline row + payment.status_changed event. */
  | {
      kind: 'transition';
      trigger: TransitionTrigger;
      to: TransactionStatus;
      providerStatus: ProviderStatus;
      reconciliation: ReconciliationState;
      reason: string;
      emitEvent: true;
    }
  /** Record on the timeline only (detail-only code, same coarse status, unknown code). */
  | {
      kind: 'detail';
      providerStatus: ProviderStatus | typeof UNKNOWN_PROVIDER_STATUS;
      reason: string | null;
      emitEvent: false;
    }
  /** Status stays; reconciliation_state becomes manual_review_required; event with previous == current. */
  | {
      kind: 'manual_review';
      providerStatus: ProviderStatus | null;
      reconciliation: 'manual_review_required';
      reason: string;
      emitEvent: true;
    }
  /** Terminal transaction: nothing moves; the code is kept on the timeline for audit. */
  | {
      kind: 'ignored';
      providerStatus: ProviderStatus | typeof UNKNOWN_PROVIDER_STATUS;
      reason: string;
      emitEvent: false;
    };

/**
 * The pure decision: current status + detail code -> what to do. Never throws.
 * - terminal statuses never move;
 * - detail-only codes and unknown codes go on the timeline only;
 * - a code whose coarse status equals the current one is detail only;
 * - an allowed move is a transition; a move the table does not allow (e.g. pending -> success,
 *   a confirmation before authentication began) is held for manual review instead of guessed.
 */
/** What the transaction last knew, for the decisions that depend on it (money that may have moved). */
export interface KnownState {
  providerStatus: string | null;
  reconciliationState: string;
  /** The network's payment id: set once the payer was sent to the bank (the network holds a payment). */
  transferId?: string | null;
}

/**
 * A payment canceled on our side after the network created its payment (the payer was sent to the
 * bank). Some networks (Token.io Payments v2) have no cancel operation: the payer may still approve
 * at the bank, so such a payment is still read until the network's status is final, and a late
 * completion is raised for manual review (the coarse status stays canceled).
 */
export function isCanceledAtNetworkOpen(t: KnownState & { status: string }): boolean {
  return (
    t.status === 'canceled' &&
    !!t.transferId &&
    t.reconciliationState === 'none' &&
    (t.providerStatus === 'canceled' ||
      t.providerStatus === 'no_final_status' ||
      t.providerStatus === 'expired')
  );
}

/**
 * Codes after which money may have moved although the payment did not succeed: the network's
 * "no final status" (final, but neither success nor failure: ask the bank), and `expired` once the
 * payer was sent to the bank (`sentToBank`: the network holds a payment, `transfer_id` set) or the
 * bank had accepted the payment for processing. A payer may approve at the bank and close the
 * browser before the network hears of it, so an expiry after the bank was reached is not a failure.
 * The coarse status is `expired` as the mapping table says, and the payment is held for manual review.
 */
export function mayHaveMoved(code: ProviderStatus, previous: string | null, sentToBank = false): boolean {
  return (
    code === 'no_final_status' ||
    code === 'settlement_incomplete' ||
    (code === 'expired' && (sentToBank || previous === 'processing'))
  );
}

export const MAY_HAVE_MOVED_REASON =
  'The bank gave no final status: money may have moved; held for manual review';
export const SETTLEMENT_INCOMPLETE_REASON =
  'The network could not match the payment in the settlement account after the bank completed it: money most likely moved; held for manual review';
export const LATE_SUCCESS_REASON =
  'The bank reported the payment completed after it had ended: money has moved; held for manual review';

export function decideProviderStatus(
  current: TransactionStatus,
  rawCode: string,
  known: KnownState = { providerStatus: null, reconciliationState: 'none' },
): Decision {
  if (rawCode.trim().toLowerCase() === MANUAL_REVIEW_SIGNAL) {
    if (isTerminal(current))
      return {
        kind: 'ignored',
        providerStatus: UNKNOWN_PROVIDER_STATUS,
        reason: `Transaction is ${current}; review signal ignored`,
        emitEvent: false,
      };
    return {
      kind: 'manual_review',
      providerStatus: null,
      reconciliation: 'manual_review_required',
      reason: 'Payment network requested a manual review',
      emitEvent: true,
    };
  }
  const code = normalizeProviderStatus(rawCode);
  if (code === UNKNOWN_PROVIDER_STATUS)
    return { kind: 'detail', providerStatus: code, reason: 'Unrecognized upstream status', emitEvent: false };
  const target = PROVIDER_STATUS_MAP[code];
  if (isTerminal(current) && known.reconciliationState === 'manual_review_required' && target !== null) {
    // A payment held for review after it ended is still read from the network: a late completion
    // is raised (event with previous == current), any other late news is recorded on the timeline.
    const knownSuccess =
      known.providerStatus !== null &&
      isProviderStatus(known.providerStatus) &&
      PROVIDER_STATUS_MAP[known.providerStatus] === 'success';
    if (target === 'success' && current !== 'success' && !knownSuccess)
      return {
        kind: 'manual_review',
        providerStatus: code,
        reconciliation: 'manual_review_required',
        reason: LATE_SUCCESS_REASON,
        emitEvent: true,
      };
    return { kind: 'detail', providerStatus: code, reason: null, emitEvent: false };
  }
  if (current === 'canceled' && known.transferId) {
    // Canceled on our side while the network's payment was open (see isCanceledAtNetworkOpen).
    if (target === 'success')
      return {
        kind: 'manual_review',
        providerStatus: code,
        reconciliation: 'manual_review_required',
        reason: LATE_SUCCESS_REASON,
        emitEvent: true,
      };
    // The network's final news (or no news yet) is recorded on the timeline; the status stays.
    if (target !== 'processing')
      return { kind: 'detail', providerStatus: code, reason: null, emitEvent: false };
  }
  if (isTerminal(current)) {
    if (target === null || target === current)
      return { kind: 'detail', providerStatus: code, reason: null, emitEvent: false };
    return {
      kind: 'ignored',
      providerStatus: code,
      reason: `Transaction is already ${current}; ${code} ignored`,
      emitEvent: false,
    };
  }
  if (target === null || target === current)
    return { kind: 'detail', providerStatus: code, reason: null, emitEvent: false };
  const row = findTransition(current, target);
  if (row) {
    const review = mayHaveMoved(code, known.providerStatus, !!known.transferId);
    return {
      kind: 'transition',
      trigger: row.trigger,
      to: target,
      providerStatus: code,
      reconciliation: review ? 'manual_review_required' : 'none',
      reason: review
        ? code === 'settlement_incomplete'
          ? SETTLEMENT_INCOMPLETE_REASON
          : MAY_HAVE_MOVED_REASON
        : row.reason,
      emitEvent: true,
    };
  }
  return {
    kind: 'manual_review',
    providerStatus: code,
    reconciliation: 'manual_review_required',
    reason: `Out-of-order status ${code} while ${current}; held for manual review`,
    emitEvent: true,
  };
}

/** An internal move (cancel, expiry) expressed with the detail code recorded on the timeline. */
export function decideInternalMove(
  current: TransactionStatus,
  to: TransactionStatus,
): { ok: true; row: TransitionRow } | { ok: false } {
  const row = findTransition(current, to);
  return row ? { ok: true, row } : { ok: false };
}
