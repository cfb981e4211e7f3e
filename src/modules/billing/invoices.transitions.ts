/**
 * Persists what billing.machine.ts decides, in the caller's transaction: the compare-and-set
 * update, `billing.invoice.status_changed`, and the notifications of `open` and `overdue`.
 * Nothing else writes invoices.status.
 */
import type { DbOrTx } from '../../db/client';
import { invoices } from '../../db/schema/billing-invoices';
import { emitEvent } from '../../outbox/emit';
import { addDays, startOfDay } from '../../platform/calendar';
import { cancelTimer, setTimer, timerRef } from '../../platform/jobs/index';
import { machineTable, transition } from '../../platform/machine';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import { type InvoiceStatus, type InvoiceTransition, invoiceMachine } from './billing.machine';
import { BillingMessages } from './billing.messages';
import type { InvoiceChanges, InvoiceRow } from './billing.repo';

const invoiceTable = machineTable(invoiceMachine, invoices, { conflict: BillingMessages.changedMeanwhile });

/**
 * The overdue timer of an open invoice (billing.jobs.ts handles it): set when the invoice opens,
 * to the start (UTC) of the day after its due date; removed when it leaves `open` first.
 */
export const INVOICE_OVERDUE = timerRef<{ invoiceId: string }>({
  kind: 'billing.invoice_overdue',
  keyOf: (p) => `invoice:${p.invoiceId}`,
});

/** The first moment an invoice due on `dueDate` is overdue: the start of the next day, UTC. */
export const overdueAt = (dueDate: string): Date => startOfDay(addDays(dueDate, 1));

/** Callers hold the invoice row lock; a lost compare-and-set means a caller forgot it (409). */
export function moveInvoice(
  tx: DbOrTx,
  invoice: InvoiceRow,
  trigger: InvoiceTransition,
  ctx: { now: Date; extra?: InvoiceChanges },
): Promise<InvoiceRow> {
  return transition(tx, invoiceTable, invoice, trigger, {
    set: { ...ctx.extra, updatedAt: ctx.now },
    event: (updated, { from, to }) =>
      emitEvent(tx, {
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
      }),
    notify: (updated, { to }) => notifyInvoice(tx, updated, to, ctx.now),
    after: async (updated, { from, to }) => {
      const timer = { invoiceId: updated.id };
      if (to === 'open' && updated.dueDate)
        await setTimer(tx, { now: () => ctx.now }, INVOICE_OVERDUE, {
          payload: timer,
          runAt: overdueAt(updated.dueDate),
          clientId: updated.clientId,
        });
      else if (from === 'open') await cancelTimer(tx, INVOICE_OVERDUE, timer);
    },
  });
}

/** `open` and `overdue` go to owners and operations. */
async function notifyInvoice(tx: DbOrTx, updated: InvoiceRow, to: InvoiceStatus, now: Date) {
  if (to !== 'open' && to !== 'overdue') return;
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
    at: now,
  });
}
