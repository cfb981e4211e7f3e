/**
 * The participant status machine: every row of the participant table as a named transition, plus
 * the signing-order rule (a later group is invited only when every signer and approver of the
 * earlier groups completed; viewers never block).
 */
import { PARTICIPANT_STATUSES, type ParticipantStatus } from '../../../db/schema/contract-requests';
import { defineMachine } from '../../../platform/machine';
import { badRequest } from '../../../shared/errors';
import { ContractMessages } from '../contracts.messages';

export { PARTICIPANT_STATUSES, type ParticipantStatus };
export type ParticipantKind = 'signer' | 'approver' | 'viewer';

export const PARTICIPANT_TRANSITIONS = {
  /** The request is sent and every earlier signing group completed (invitation emailed, delivery email). */
  invite: { from: ['waiting'], to: 'sent' },
  /** Opens the signing page. */
  view: { from: ['sent'], to: 'viewed' },
  /** Signs, approves, or (viewer) acknowledges. */
  complete: { from: ['sent', 'viewed'], to: 'completed' },
  /** Declines, with an optional reason. */
  decline: { from: ['sent', 'viewed'], to: 'declined' },
  /** The invitation email bounces. */
  bounce: { from: ['sent'], to: 'bounced' },
  /** PATCH participant (new email). */
  correct: { from: ['bounced', 'sent', 'viewed'], to: 'sent' },
  /** The request is declined by another, expired or voided. */
  cancel: { from: ['waiting', 'sent', 'viewed', 'bounced'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly ParticipantStatus[]; to: ParticipantStatus }>;

export type ParticipantTransition = keyof typeof PARTICIPANT_TRANSITIONS;

/** What the signing page answers: completed, not yet invited, or no longer active. */
function refused(_t: ParticipantTransition, from: ParticipantStatus) {
  if (from === 'completed') return badRequest(ContractMessages.participantCompleted);
  return badRequest(from === 'waiting' ? ContractMessages.notYourTurn : ContractMessages.linkInactive);
}

export const participantMachine = defineMachine({
  name: 'participant',
  statuses: PARTICIPANT_STATUSES,
  transitions: PARTICIPANT_TRANSITIONS,
  terminal: ['completed', 'declined', 'canceled'],
  refused,
});

export const canMoveParticipant = participantMachine.can;
export const participantTarget = (t: ParticipantTransition): ParticipantStatus =>
  PARTICIPANT_TRANSITIONS[t].to;

/** A participant whose turn it is (invited, not yet done). */
export const isActiveTurn = (s: ParticipantStatus): boolean =>
  s === 'sent' || s === 'viewed' || s === 'bounced';

/** Signers and approvers decide completion; viewers never block it. */
export const blocksCompletion = (kind: ParticipantKind): boolean => kind !== 'viewer';

export interface OrderedParticipant {
  id: string;
  kind: ParticipantKind;
  signingOrder: number;
  status: ParticipantStatus;
}

/**
 * The participants to invite now: the waiting ones of the lowest signing group that still has
 * anything open, provided every signer/approver of all lower groups completed. Parallel groups share
 * a number.
 */
export function participantsToInvite<P extends OrderedParticipant>(ps: readonly P[]): P[] {
  const orders = [...new Set(ps.map((p) => p.signingOrder))].sort((a, b) => a - b);
  for (const o of orders) {
    const group = ps.filter((p) => p.signingOrder === o);
    const waiting = group.filter((p) => p.status === 'waiting');
    if (waiting.length > 0) return waiting;
    const open = group.some((p) => blocksCompletion(p.kind) && p.status !== 'completed');
    if (open) return [];
  }
  return [];
}

/** True when every signer and approver completed (viewers never block completion). */
export function allSignersCompleted(ps: readonly OrderedParticipant[]): boolean {
  return ps.filter((p) => blocksCompletion(p.kind)).every((p) => p.status === 'completed');
}

/** Correcting or reminding a completed participant is refused. */
export function assertNotCompleted(s: ParticipantStatus): void {
  if (s === 'completed') throw badRequest(ContractMessages.participantCompleted);
}
