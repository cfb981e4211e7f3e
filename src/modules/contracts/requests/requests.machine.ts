/**
 * The contract request status machine: every row of the request table as a named transition.
 * Nothing else decides a request's status; moves are persisted by requests.transitions.ts through
 * the platform's `transition` (docs/platform.md, "Status machines").
 */
import { CONTRACT_REQUEST_STATUSES, type ContractRequestStatus } from '../../../db/schema/contract-requests';
import { defineMachine } from '../../../platform/machine';
import { badRequest } from '../../../shared/errors';
import { ContractMessages } from '../contracts.messages';

export const REQUEST_STATUSES = CONTRACT_REQUEST_STATUSES;
export type RequestStatus = ContractRequestStatus;

export const REQUEST_TRANSITIONS = {
  /** The provider accepted the envelope: the first signing group is invited. */
  accept: { from: ['pending'], to: 'sent' },
  /** The provider cannot process the document (status_reason). */
  fail: { from: ['pending'], to: 'failed' },
  /** The first participant completes. */
  start: { from: ['sent'], to: 'in_progress' },
  /** The last signer or approver completes: sealed PDF, certificate, completed event, payment link. */
  complete: { from: ['sent', 'in_progress'], to: 'completed' },
  /** A participant declines: the others are canceled. */
  decline: { from: ['sent', 'in_progress'], to: 'declined' },
  /** expires_at passes (sweeper): the others are canceled. */
  expire: { from: ['sent', 'in_progress'], to: 'expired' },
  /** POST …/void: the others are canceled, the provider is told. */
  void: { from: ['pending', 'sent', 'in_progress'], to: 'voided' },
} as const satisfies Record<string, { from: readonly RequestStatus[]; to: RequestStatus }>;

export type RequestTransition = keyof typeof REQUEST_TRANSITIONS;

export const TERMINAL_REQUEST_STATUSES: readonly RequestStatus[] = [
  'completed',
  'declined',
  'expired',
  'voided',
  'failed',
];

/** A terminal request names its status; fail and expire say which status they need (the simulate answers). */
function refused(t: RequestTransition, from: RequestStatus) {
  if (TERMINAL_REQUEST_STATUSES.includes(from)) return badRequest(ContractMessages.terminal(from));
  if (t === 'fail') return badRequest(ContractMessages.onlyPendingFail(from));
  if (t === 'expire') return badRequest(ContractMessages.onlySentExpire(from));
  return badRequest(ContractMessages.requestActionNotAllowed(from));
}

export const requestMachine = defineMachine({
  name: 'contract request',
  statuses: REQUEST_STATUSES,
  transitions: REQUEST_TRANSITIONS,
  terminal: TERMINAL_REQUEST_STATUSES,
  refused,
});

export const isTerminalRequest = requestMachine.isTerminal;
export const canMoveRequest = requestMachine.can;
/** Sent or in progress: some participant's turn is live (remind, the sandbox simulator). */
export const awaitsParticipants = (s: RequestStatus): boolean => requestMachine.can('complete', s);
export const requestTarget = (t: RequestTransition): RequestStatus => REQUEST_TRANSITIONS[t].to;

/** Void, remind and participant correction need a live request. */
export function assertNotTerminal(s: RequestStatus): void {
  if (isTerminalRequest(s)) throw badRequest(ContractMessages.terminal(s));
}
