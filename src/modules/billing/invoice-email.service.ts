/** The invoice email (PDF attached): a job owed by the finalization, or by the link it waited for. */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { invoices } from '../../db/schema/index';
import {
  defineJob,
  EMAIL_RETRY,
  emailErrorText,
  enqueueJobId,
  PermanentJobError,
  sendEmailThenMark,
} from '../../platform/jobs/index';
import { findPdf, updateInvoice } from './billing.repo';

export const INVOICE_EMAIL_MAX_ATTEMPTS = EMAIL_RETRY.maxAttempts;

/** Owes the invoice email from the caller's transaction (finalization, or the link settling first). */
export async function oweInvoiceEmail(tx: DbOrTx, now: Date, invoiceId: string, clientId: string) {
  return enqueueJobId(tx, { now: () => now }, invoiceEmailJob, {
    payload: { invoiceId },
    runAt: now,
    clientId,
  });
}

/**
 * The invoice email to billing_email with the stored PDF attached, outside any transaction. The
 * invoice row shows its state: each failure is recorded there (attempts, last_error) and retried by
 * the jobs runner; after the last attempt the state is `failed` (visible to staff), never dropped
 * silently. A job that finds the email already sent (a re-run after a crash) sends nothing.
 */
export const invoiceEmailJob = defineJob<{ invoiceId: string }>({
  kind: 'billing.invoice_email',
  ...EMAIL_RETRY,
  async run(deps, { invoiceId }, ctx) {
    const [inv] = await deps.db.select().from(invoices).where(eq(invoices.id, invoiceId));
    if (inv?.emailState !== 'pending') return;
    await sendEmailThenMark(
      deps,
      ctx,
      async () => {
        const pdf = await findPdf(deps.db, inv.id);
        if (!pdf || !inv.emailRecipient) throw new PermanentJobError('invoice has no PDF or recipient');
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
      },
      (o) =>
        updateInvoice(
          deps.db,
          inv.id,
          o.state === 'sent'
            ? { emailState: o.state, emailedAt: o.sentAt, emailAttempts: o.attempts }
            : { emailState: o.state, emailAttempts: o.attempts, emailLastError: emailErrorText(o.error) },
        ),
    );
  },
});
