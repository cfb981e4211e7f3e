/**
 * The opco status machine: the only place that decides which status an opco may move to.
 * Every move goes through the platform's `transition` (opcos.transitions.ts): compare-and-set,
 * then `opco.status_changed`, the activity entry and notifications in the same transaction.
 */
import { OPCO_STATUSES, type OpcoStatus } from '../../db/schema/opcos';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';

export { OPCO_STATUSES, type OpcoStatus };

/** Named transitions: who or what moves an opco, and between which statuses. */
export const OPCO_TRANSITIONS = {
  /** Client submit on a sandbox deployment: registered with the (simulated) network at once. */
  submit_sandbox: { from: ['draft'], to: 'awaiting_approval' },
  /** Client submit on a production deployment: staff review comes first. */
  submit_production: { from: ['draft'], to: 'pending_superadmin_review' },
  /** Staff approve after their review: forwarded to the payment network. */
  staff_approve_review: { from: ['pending_superadmin_review'], to: 'awaiting_approval' },
  /** Staff approve of an opco the network is processing: activates it at once. */
  staff_activate: { from: ['awaiting_approval'], to: 'activated' },
  /** The payment network (or the sandbox simulator) approved the Sub-TPP. */
  network_activate: { from: ['awaiting_approval'], to: 'activated' },
  /** The payment network refused the Sub-TPP. */
  network_reject: { from: ['awaiting_approval'], to: 'rejected' },
  staff_reject: { from: ['pending_superadmin_review', 'awaiting_approval'], to: 'rejected' },
  staff_deactivate: { from: ['activated'], to: 'deactivated' },
  /** The payment network withdrew an activated Sub-TPP (Token.io `DEACTIVATED`), seen by the daily re-read. */
  network_deactivate: { from: ['activated'], to: 'deactivated' },
} as const satisfies Record<string, { from: readonly OpcoStatus[]; to: OpcoStatus }>;

export type OpcoTransition = keyof typeof OPCO_TRANSITIONS;

export function targetOf(transition: OpcoTransition): OpcoStatus {
  return OPCO_TRANSITIONS[transition].to;
}

export const opcoMachine = defineMachine({
  name: 'opco',
  statuses: OPCO_STATUSES,
  transitions: OPCO_TRANSITIONS,
  terminal: ['rejected', 'deactivated'],
  /** The clear 400 every refused transition gets. */
  refused: (t, from) => badRequest(`Opco cannot move from '${from}' to '${targetOf(t)}'`),
});

export const canApply = opcoMachine.can;
export const assertCanApply = opcoMachine.assert;

/** Only drafts are edited or deleted by the client. */
export const isEditable = (s: OpcoStatus): boolean => s === 'draft';
export const isDeletable = (s: OpcoStatus): boolean => s === 'draft';
export const isSubmittable = (s: OpcoStatus): boolean => s === 'draft';
/** A rejected or deactivated opco cannot be bound to a project. */
export const isBindable = (s: OpcoStatus): boolean => s !== 'rejected' && s !== 'deactivated';
/** Payments need an activated opco with a Sub-TPP id. */
export const canTakePayments = (s: OpcoStatus): boolean => s === 'activated';
export const isTerminal = opcoMachine.isTerminal;
