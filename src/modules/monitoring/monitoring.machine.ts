/**
 * The monitoring decision machine: the only place that decides which decision a monitored
 * transaction may move to. APPROVED and DECLINED are final. Moves are persisted by
 * monitoring.transitions.ts through the platform's `transition` (docs/platform.md, "Status machines").
 */
import { DECISIONS, type Decision } from '../../db/schema/monitoring';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { MonitoringMessages } from './monitoring.messages';

export type { Decision };

/** Every row of the decision table after the first (the first is the evaluation itself). */
export const DECISION_TRANSITIONS = {
  review_approve: { from: ['IN_REVIEW', 'AWAITING_USER'], to: 'APPROVED' },
  review_decline: { from: ['IN_REVIEW', 'AWAITING_USER'], to: 'DECLINED' },
  /** Remediation issued. */
  review_await_user: { from: ['IN_REVIEW'], to: 'AWAITING_USER' },
  /** The end user submits the remediation page: remediation_status submitted. */
  remediation_submitted: { from: ['AWAITING_USER'], to: 'IN_REVIEW' },
  /** TTL elapses: the policy's on_remediation_expiry, remediation_status expired. */
  remediation_expired_review: { from: ['AWAITING_USER'], to: 'IN_REVIEW' },
  remediation_expired_decline: { from: ['AWAITING_USER'], to: 'DECLINED' },
} as const satisfies Record<string, { from: readonly Decision[]; to: Decision }>;

export type DecisionTransition = keyof typeof DECISION_TRANSITIONS;

/** What the reviewer's and the remediation page's own checks answer. */
function refused(t: DecisionTransition, from: Decision) {
  if (from === 'APPROVED' || from === 'DECLINED') return badRequest(MonitoringMessages.finalDecision);
  if (t.startsWith('remediation_')) return badRequest(MonitoringMessages.noPendingRemediation);
  return badRequest(MonitoringMessages.sameDecision);
}

export const decisionMachine = defineMachine({
  name: 'monitoring decision',
  statuses: DECISIONS,
  transitions: DECISION_TRANSITIONS,
  terminal: ['APPROVED', 'DECLINED'],
  refused,
});

export const isFinal = decisionMachine.isTerminal;
export const canApply = decisionMachine.can;

export const targetOf = (t: DecisionTransition): Decision => DECISION_TRANSITIONS[t].to;

/** Whether a decision issues a remediation link (the first decision or a review to AWAITING_USER). */
export const issuesRemediation = (d: Decision): boolean => d === 'AWAITING_USER';

/** A reviewer's decision: 400 on a final decision or the current one; otherwise the row that applies. */
export function decideReview(
  from: Decision,
  to: 'APPROVED' | 'DECLINED' | 'AWAITING_USER',
): DecisionTransition {
  if (isFinal(from)) throw badRequest(MonitoringMessages.finalDecision);
  if (from === to) throw badRequest(MonitoringMessages.sameDecision);
  const t: DecisionTransition =
    to === 'APPROVED' ? 'review_approve' : to === 'DECLINED' ? 'review_decline' : 'review_await_user';
  if (!canApply(t, from)) throw badRequest(MonitoringMessages.sameDecision);
  return t;
}

/** The end user's submission: only while AWAITING_USER with a pending remediation. */
export function decideRemediationSubmit(
  from: Decision,
  remediationStatus: string | null,
): DecisionTransition {
  if (from !== 'AWAITING_USER' || remediationStatus !== 'pending')
    throw badRequest(MonitoringMessages.noPendingRemediation);
  return 'remediation_submitted';
}

/** The TTL elapsed: the policy's on_remediation_expiry. */
export function decideRemediationExpiry(
  from: Decision,
  remediationStatus: string | null,
  onExpiry: 'IN_REVIEW' | 'DECLINED',
): DecisionTransition {
  if (from !== 'AWAITING_USER' || remediationStatus !== 'pending')
    throw badRequest(MonitoringMessages.noPendingRemediation);
  return onExpiry === 'DECLINED' ? 'remediation_expired_decline' : 'remediation_expired_review';
}
