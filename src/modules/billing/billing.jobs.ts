/**
 * Billing background work: the overdue timer of open invoices (a job row set when an invoice opens,
 * invoices.transitions.ts). The invoice email and payment link are jobs (invoice-email.service.ts,
 * invoice-payment-link.service.ts).
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../../deps';
import { isoDate } from '../../platform/calendar';
import { defineTimer, runDueTimers } from '../../platform/jobs/index';
import { recordActivity } from '../activity/activity-writer.service';
import { findInvoice } from './billing.repo';
import { invoiceTarget } from './invoices.service';
import { INVOICE_OVERDUE, moveInvoice } from './invoices.transitions';

/**
 * An open invoice whose due date has passed (in UTC) becomes overdue (actor: automatic). The handler
 * re-reads the invoice under lock: paid or voided meanwhile, it does nothing.
 */
export const invoiceOverdueTimer = defineTimer<{ invoiceId: string }>({
  ...INVOICE_OVERDUE,
  label: 'Invoice overdue',
  backfill:
    () => sql`select 'invoice:' || id::text as key, jsonb_build_object('invoiceId', id::text) as payload,
                       client_id, (due_date + 1)::timestamp at time zone 'UTC' as run_at
                  from invoices where status = 'open' and due_date is not null`,
  async fire(deps, { invoiceId }) {
    return deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const inv = await findInvoice(tx, invoiceId, { forUpdate: true });
      if (inv?.status !== 'open' || !inv.dueDate || inv.dueDate >= isoDate(now)) return false;
      const row = await moveInvoice(tx, inv, 'mark_overdue', { now });
      await recordActivity(tx, {
        clientId: inv.clientId,
        action: 'invoice.overdue',
        at: now,
        target: invoiceTarget(inv),
        changes: { status: { from: 'open', to: row.status } },
        metadata: { due_date: inv.dueDate, amount_due: inv.amountDue },
      });
      return true;
    });
  },
});

/** Runs the due overdue timers now (tests, the CLI); returns how many invoices became overdue. */
export async function markOverdueInvoices(deps: Deps): Promise<number> {
  return runDueTimers(deps, [invoiceOverdueTimer]);
}
