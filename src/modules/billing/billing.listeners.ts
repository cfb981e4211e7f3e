/**
 * An invoice's payment link succeeding marks the invoice paid, inside the transaction that moves the
 * payment (`payments.status_changed`). A success on an invoice that is already paid or void changes nothing.
 */
import { recordActivity } from '../activity/activity-writer.service';
import { onPaymentStatus } from '../payments/status-events.service';
import { canApply } from './billing.machine';
import { findInvoice } from './billing.repo';
import { invoiceTarget } from './invoices.service';
import { moveInvoice } from './invoices.transitions';

export const markInvoicePaidOnPayment = onPaymentStatus(
  'invoice',
  async ({ transaction, to, at }, { tx }) => {
    if (to !== 'success' || !transaction.originId) return;
    const inv = await findInvoice(tx, transaction.originId, { forUpdate: true });
    if (!inv || !canApply('payment_success', inv.status)) return;
    const row = await moveInvoice(tx, inv, 'payment_success', {
      now: at,
      extra: {
        paidAt: at,
        paymentReference: `transaction ${transaction.id}`,
        amountPaid: inv.total,
        amountDue: '0.00',
        transactionId: transaction.id,
      },
    });
    await recordActivity(tx, {
      clientId: inv.clientId,
      // Automatic: whoever drove the payment (the payer, a bank notification, another client's simulation)
      // is not an actor of the billed client.
      actor: { type: 'system', accountId: null, credentialId: null },
      action: 'invoice.paid',
      at,
      target: invoiceTarget(inv),
      changes: { status: { from: inv.status, to: row.status } },
      metadata: {
        transaction_id: transaction.id,
        amount: transaction.amount,
        currency: transaction.currency,
      },
    });
  },
);
