/**
 * The contract request status machine (named-areas.md section 1, "Request status"): every row of the
 * table as a named transition. Nothing else decides a request's status; transitions are persisted
 * compare-and-set by requests.transitions.ts.
 */
import { badRequest } from '../../shared/errors';
import { CM } from './contracts.messages';

export const REQUEST_STATUSES = [
  'pending',
  'sent',
  'in_progress',
  'completed',
  'declined',
  'expired',
  'voided',
  'failed',
] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

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

export const isTerminalRequest = (s: RequestStatus): boolean => TERMINAL_REQUEST_STATUSES.includes(s);

export function canMoveRequest(t: RequestTransition, from: RequestStatus): boolean {
  return (REQUEST_TRANSITIONS[t].from as readonly RequestStatus[]).includes(from);
}

export const requestTarget = (t: RequestTransition): RequestStatus => REQUEST_TRANSITIONS[t].to;

/** Void, remind and participant correction need a live request. */
export function assertNotTerminal(s: RequestStatus): void {
  if (isTerminalRequest(s)) throw badRequest(CM.terminal(s));
}
