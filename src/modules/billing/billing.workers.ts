/**
 * Billing background work, each a due row claimed with FOR UPDATE SKIP LOCKED on the injected clock:
 * the overdue sweeper, the invoice emails (PDF attached), and the payment links still to create.
 */
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { retryDelaySeconds } from '../../shared/retry-schedule';
import { recordActivity } from '../activity/activity.writer';
import { claimDueInvoiceWork, claimOverdueInvoices, findPdf, updateInvoice } from './billing.repo';
import { invoiceTarget } from './invoices.service';
import { moveInvoice } from './invoices.transitions';

export { processDuePaymentLinks } from './invoice-payment-link';

/** Open invoices whose due date has passed (in UTC) become overdue (actor: automatic). */
export async function markOverdueInvoices(deps: Pick<Deps, 'db' | 'clock'>, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const today = now.toISOString().slice(0, 10);
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

const EMAIL_LEASE_SECONDS = 300;
export const INVOICE_EMAIL_MAX_ATTEMPTS = 6;

/**
 * Emails finalized invoices to billing_email with the stored PDF attached, outside any transaction.
 * A failure is recorded on the invoice and retried with backoff; after the last attempt the email
 * state is `failed` (visible to staff), never dropped silently.
 */
export async function sendDueInvoiceEmails(deps: Pick<Deps, 'db' | 'clock' | 'mailer' | 'log'>, limit = 10) {
  const now = deps.clock.now();
  const due = await claimDueInvoiceWork(deps.db, 'email', now, addSeconds(now, EMAIL_LEASE_SECONDS), limit);
  for (const inv of due) {
    try {
      const pdf = await findPdf(deps.db, inv.id);
      if (!pdf || !inv.emailRecipient) throw new Error('invoice has no PDF or recipient');
      const pay = inv.paymentUrl
        ? `Pay online: ${inv.paymentUrl}\n`
        : `Pay by bank transfer to ${inv.paymentInstructions?.payee_name ?? ''}, IBAN ${inv.paymentInstructions?.iban ?? ''}, BIC ${inv.paymentInstructions?.bic ?? ''}, reference ${inv.number}.\n`;
      await deps.mailer.send({
        to: inv.emailRecipient,
        subject: `Invoice ${inv.number}: ${inv.currency} ${inv.total} due ${inv.dueDate}`,
        text:
          `Invoice ${inv.number} for the period ${inv.periodStart} to ${inv.periodEnd} is attached.\n\n` +
          `Total: ${inv.currency} ${inv.total}\nDue date: ${inv.dueDate}\n${pay}`,
        attachments: [
          { filename: `${inv.number}.pdf`, content: pdf.content, contentType: 'application/pdf' },
        ],
      });
      await updateInvoice(deps.db, inv.id, {
        emailState: 'sent',
        emailedAt: deps.clock.now(),
        emailNextAt: null,
      });
    } catch (err) {
      const message =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      const giveUp = inv.emailAttempts >= INVOICE_EMAIL_MAX_ATTEMPTS;
      deps.log.warn(
        { err: message, invoiceId: inv.id, attempts: inv.emailAttempts, giveUp },
        'invoice email failed',
      );
      await updateInvoice(deps.db, inv.id, {
        emailState: giveUp ? 'failed' : 'pending',
        emailLastError: message.slice(0, 500),
        emailNextAt: giveUp ? null : addSeconds(deps.clock.now(), retryDelaySeconds(inv.emailAttempts)),
      });
    }
  }
  return due.length;
}
