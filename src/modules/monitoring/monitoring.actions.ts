/** A monitored transaction's `allowed_actions`, from the decision machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { type Decision, decisionMachine } from './monitoring.machine';

type Row = { decision: Decision; remediation_status: string | null };

export const monitoringActions = defineActions(decisionMachine, (m: Row) => m.decision, {
  approve: { permission: 'monitoring.review', triggers: ['review_approve'] },
  decline: { permission: 'monitoring.review', triggers: ['review_decline'] },
  request_remediation: { permission: 'monitoring.review', triggers: ['review_await_user'] },
  simulate_remediation: {
    permission: 'sandbox.simulate',
    triggers: ['remediation_submitted', 'remediation_expired_review', 'remediation_expired_decline'],
    when: (m) => m.remediation_status === 'pending',
    sandboxOnly: true,
  },
});

export const MonitoringActionsSchema = allowedActionsSchema(monitoringActions, {
  approve:
    'POST /monitoring/transactions/{monitored_transaction_id}/review with decision APPROVED (IN_REVIEW or ' +
    'AWAITING_USER; with a sanctions hit the body also needs clear_sanctions_match)',
  decline: 'the same with decision DECLINED (IN_REVIEW or AWAITING_USER)',
  request_remediation: 'the same with decision AWAITING_USER and a remediation_type (IN_REVIEW)',
  simulate_remediation:
    'POST /sandbox/monitoring/transactions/{monitored_transaction_id}/simulate (sandbox, AWAITING_USER with a pending remediation)',
});

export function withMonitoringActions<V extends Row>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: monitoringActions.of(view, viewer) });
}
