/** A transaction's `allowed_actions`, from the transaction machine (docs/platform.md, "allowed_actions"). */
import { allowedActionsSchema, defineActions } from '../../platform/actions';
import { isTerminal, transactionMachine } from './payments.machine';
import type { TransactionRow } from './payments.repo';

const open = (s: TransactionRow['status']) => !isTerminal(s);

export const transactionActions = defineActions(
  transactionMachine,
  (t: Pick<TransactionRow, 'status' | 'transferId'>) => t.status,
  {
    cancel: {
      permission: 'payments.write',
      triggers: ['canceled_before_checkout', 'canceled_during_checkout'],
    },
    refresh_status: {
      permission: 'payments.refresh',
      statuses: open,
      when: (t) => t.transferId !== null,
    },
    simulate: { permission: 'sandbox.simulate', statuses: open, sandboxOnly: true },
  },
);

export const TransactionActionsSchema = allowedActionsSchema(transactionActions, {
  cancel: 'POST /checkout/intent/{transaction_id}/cancel (pending or processing)',
  refresh_status:
    'POST /transactions/{transaction_id}/refresh-status (pending or processing, once the payer picked a bank)',
  simulate: 'POST /sandbox/transactions/{transaction_id}/simulate (sandbox, pending or processing)',
});
