/**
 * Billing background work: the overdue sweeper (due rows claimed with FOR UPDATE SKIP LOCKED on the
 * injected clock). The invoice email and payment link are jobs (invoice-email.ts, invoice-payment-link.ts).
 */
import type { Deps } from '../../deps';
import { isoDate } from '../../platform/calendar';
import { recordActivity } from '../activity/activity.writer';
import { claimOverdueInvoices } from './billing.repo';
import { invoiceTarget } from './invoices.service';
import { moveInvoice } from './invoices.transitions';

/** Open invoices whose due date has passed (in UTC) become overdue (actor: automatic). */
export async function markOverdueInvoices(deps: Pick<Deps, 'db' | 'clock'>, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const today = isoDate(now);
  return deps.db.transaction(async (tx) => {
    const due = await claimOverdueInvoices(tx, today, limit);
    for (const inv of due) {
      const row = await moveInvoice(tx, inv, 'mark_overdue', { now });
      await recordActivity(tx, {
        clientId: inv.clientId,
        action: 'invoice.overdue',
        at: now,
        target: invoiceTarget(inv),
        changes: { status: { from: 'open', to: row.status } },
        metadata: { due_date: inv.dueDate, amount_due: inv.amountDue },
      });
    }
    return due.length;
  });
}
