/**
 * A travel-rule transfer's `allowed_actions`, from the transfer machine (docs/platform.md,
 * "allowed_actions"). The endpoints themselves are in transfers.actions.ts.
 */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { type TransferStatus, transferMachine } from './travel-rule.machine';

interface TransferFacts {
  status: TransferStatus;
  direction: 'outbound' | 'inbound';
  beneficiary_vasp: unknown;
}

const inbound = (t: TransferFacts) => t.direction === 'inbound';

export const transferActions = defineActions(transferMachine, (t: TransferFacts) => t.status, {
  repair: {
    permission: 'travel_rule.write',
    triggers: ['repaired'],
    when: (t) => t.beneficiary_vasp !== null,
  },
  tx_hash: { permission: 'travel_rule.write', triggers: ['tx_hash'] },
  proceed: { permission: 'travel_rule.write', triggers: ['proceed'] },
  accept: { permission: 'travel_rule.write', triggers: ['review_accept'], when: inbound },
  reject: { permission: 'travel_rule.write', triggers: ['review_reject'], when: inbound },
  cancel: { permission: 'travel_rule.write', triggers: ['cancel'] },
  simulate: {
    permission: 'sandbox.simulate',
    triggers: ['counterparty_accepted', 'counterparty_repair', 'counterparty_rejected', 'expire'],
    sandboxOnly: true,
  },
});

export const TransferActionsSchema = allowedActionsSchema(transferActions, {
  repair: 'PATCH /travel-rule/transfers/{transfer_id} (needs_repair)',
  tx_hash: 'POST /travel-rule/transfers/{transfer_id}/tx-hash (accepted)',
  proceed: 'POST /travel-rule/transfers/{transfer_id}/proceed (counterparty_not_reachable)',
  accept: 'POST /travel-rule/transfers/{transfer_id}/accept (inbound, awaiting_review)',
  reject: 'POST /travel-rule/transfers/{transfer_id}/reject (inbound, awaiting_review)',
  cancel: 'POST /travel-rule/transfers/{transfer_id}/cancel (not in a terminal status)',
  simulate:
    'POST /sandbox/travel-rule/transfers/{transfer_id}/simulate (sandbox; awaiting_counterparty, needs_repair or ' +
    'awaiting_review: `expire` in each, the counterparty answers only to an outbound awaiting_counterparty)',
});

export function withTransferActions<V extends TransferFacts>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: transferActions.of(view, viewer) });
}
