/**
 * Persists what billing.machine.ts decides, in the caller's transaction: the compare-and-set
 * update, `billing.invoice.status_changed`, and the notifications of `open` and `overdue`.
 * Nothing else writes invoices.status.
 */
import type { DbOrTx } from '../../db/client';
import { emitEvent } from '../../outbox/emit';
import { conflict } from '../../shared/errors';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify';
import { assertCanApply, type InvoiceStatus, type InvoiceTransition } from './billing.machine';
import { type InvoiceChanges, type InvoiceRow, updateInvoiceIfStatus } from './billing.repo';

export async function moveInvoice(
  tx: DbOrTx,
  invoice: InvoiceRow,
  transition: InvoiceTransition,
  ctx: { now: Date; extra?: InvoiceChanges },
): Promise<InvoiceRow> {
  const from = invoice.status as InvoiceStatus;
  const to = assertCanApply(transition, from);
  const updated = await updateInvoiceIfStatus(tx, invoice.id, from, {
    ...ctx.extra,
    status: to,
    updatedAt: ctx.now,
  });
  // Callers hold the invoice row lock; a miss means a caller forgot it.
  if (!updated) throw conflict('Invoice was changed meanwhile, please retry');
  await emitEvent(tx, {
    clientId: updated.clientId,
    type: 'billing.invoice.status_changed',
    data: {
      invoice_id: updated.id,
      number: updated.number,
      previous_status: from,
      current_status: to,
      total: updated.total,
      amount_due: updated.amountDue,
      currency: updated.currency,
      due_date: updated.dueDate,
    },
    occurredAt: ctx.now,
    dedupKey: `invoice:${updated.id}:${to}`,
  });
  if (to === 'open' || to === 'overdue') {
    await notify(tx, {
      clientId: updated.clientId,
      category: 'billing',
      severity: to === 'overdue' ? 'warning' : 'info',
      title:
        to === 'overdue'
          ? `Invoice ${updated.number} is overdue`
          : `Invoice ${updated.number} for ${updated.currency} ${updated.total} is due on ${updated.dueDate}`,
      body:
        to === 'overdue'
          ? `${updated.currency} ${updated.amountDue} was due on ${updated.dueDate}.`
          : `A new invoice is available to download and pay.`,
      item: { type: 'invoice', id: updated.id },
      audience: { roles: OWNER_AND_OPERATIONS },
      at: ctx.now,
    });
  }
  return updated;
}
