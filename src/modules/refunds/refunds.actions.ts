/** A refund's `allowed_actions`, from the refund machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { cancelable, type RefundRow, type RefundStatus, refundMachine } from './refunds.machine';

export const refundActions = defineActions(
  refundMachine,
  (r: Pick<RefundRow, 'status' | 'submittedAt'>) => r.status,
  {
    cancel: { permission: 'payments.refund', triggers: ['cancel'], when: (r) => cancelable(r) },
    simulate: {
      permission: 'sandbox.simulate',
      statuses: (s: RefundStatus) => s === 'processing',
      sandboxOnly: true,
    },
  },
);

export const RefundActionsSchema = allowedActionsSchema(refundActions, {
  cancel: 'POST /refunds/{refund_id}/cancel (pending, not yet handed to the payment network)',
  simulate: 'POST /sandbox/refunds/{refund_id}/simulate (sandbox, processing)',
});

export function withRefundActions<V extends object>(
  view: V,
  row: Pick<RefundRow, 'status' | 'submittedAt'>,
  viewer: ActionViewer,
) {
  return Object.assign(view, { allowed_actions: refundActions.of(row, viewer) });
}
