/** A transaction's `allowed_actions`, from the transaction machine (docs/platform.md, "allowed_actions"). */
import { allowedActionsSchema, defineActions } from '../../platform/actions';
import { compare, sub, toCurrencyScale } from '../../platform/decimal';
import { isTerminal, transactionMachine } from './payments.machine';
import type { TransactionRow } from './payments.repo';

const open = (s: TransactionRow['status']) => !isTerminal(s);

type RefundSums = Pick<
  TransactionRow,
  'status' | 'amount' | 'currency' | 'refundedAmount' | 'refundHeldAmount'
>;

/**
 * What can still be refunded (decimal string at the currency's scale): a successful payment's amount
 * less its pending, processing and succeeded refunds; "0" at that scale for any other status.
 */
export function refundableAmount(t: RefundSums): string {
  if (t.status !== 'success') return toCurrencyScale('0', t.currency, 'exact');
  return toCurrencyScale(sub(sub(t.amount, t.refundedAmount), t.refundHeldAmount), t.currency, 'exact');
}

export const transactionActions = defineActions(
  transactionMachine,
  (t: Pick<TransactionRow, 'transferId'> & RefundSums) => t.status,
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
    refund: {
      permission: 'payments.refund',
      statuses: (s) => s === 'success',
      when: (t) => compare(refundableAmount(t), '0') > 0,
    },
    simulate: { permission: 'sandbox.simulate', statuses: open, sandboxOnly: true },
  },
);

export const TransactionActionsSchema = allowedActionsSchema(transactionActions, {
  cancel: 'POST /checkout/intent/{transaction_id}/cancel (pending or processing)',
  refresh_status:
    'POST /transactions/{transaction_id}/refresh-status (pending or processing, once the payer picked a bank)',
  refund: 'POST /transactions/{transaction_id}/refunds (success, with a refundable amount left)',
  simulate: 'POST /sandbox/transactions/{transaction_id}/simulate (sandbox, pending or processing)',
});
