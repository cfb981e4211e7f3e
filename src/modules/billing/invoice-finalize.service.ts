/**
 * Finalization: draft -> open in ONE transaction that takes the next gapless number (the counter row
 * stays locked until commit), snapshots the billing details and payment instructions, renders the PDF
 * once and stores it immutably with its sha256, and owes the email (and the payment link when the
 * platform collects invoices online). The payment link is created right after the commit, outside the
 * transaction; a failure is recorded on the invoice and retried by the billing worker.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { InvoiceBillingDetails } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addDays, isoDate } from '../../platform/calendar';
import { isZero } from '../../platform/decimal';
import { type JobDefinition, runJobsNow } from '../../platform/jobs/index';
import { badRequest, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { recordActivity } from '../activity/activity-writer.service';
import { assertCanApply } from './billing.machine';
import { BillingMessages } from './billing.messages';
import { findBillingDetails, findInvoice, insertPdf, linesOf, nextInvoiceNumber } from './billing.repo';
import { oweInvoiceEmail } from './invoice-email.service';
import { invoicePaymentLinkJob, oweInvoicePaymentLink } from './invoice-payment-link.service';
import { renderInvoicePdf } from './invoice-pdf.service';
import { getAdminInvoice, invoiceTarget } from './invoices.service';
import { moveInvoice } from './invoices.transitions';

/** The client's billing details, or its registration name and email when none were given. */
async function detailsSnapshot(
  tx: DbOrTx,
  clientId: string,
): Promise<{ details: InvoiceBillingDetails; purchaseOrderNumber: string | null }> {
  const row = await findBillingDetails(tx, clientId);
  if (row)
    return {
      details: {
        company_name: row.companyName,
        address: row.address ?? null,
        vat_number: row.vatNumber,
        billing_email: row.billingEmail,
      },
      purchaseOrderNumber: row.purchaseOrderNumber,
    };
  const res = await tx.execute(sql`select company_name, email from clients where id = ${clientId}::uuid`);
  const c = rowsOf<{ company_name: string; email: string }>(res)[0];
  return {
    details: {
      company_name: c?.company_name ?? null,
      address: null,
      vat_number: null,
      billing_email: c?.email ?? null,
    },
    purchaseOrderNumber: null,
  };
}

export async function finalizeInvoice(deps: Deps, id: string) {
  const { config } = deps;
  const now = deps.clock.now();
  const issueDate = isoDate(now);
  const year = now.getUTCFullYear();
  let linkJob: string | null = null;
  await deps.db.transaction(async (tx) => {
    const draft = await findInvoice(tx, id, { forUpdate: true });
    if (!draft) throw notFound(M.invoiceNotFound);
    assertCanApply('finalize', draft.status);
    const lines = (await linesOf(tx, [id])).get(id) ?? [];
    if (lines.length === 0) throw badRequest(BillingMessages.noLines);
    const { details, purchaseOrderNumber } = await detailsSnapshot(tx, draft.clientId);
    const dueDate = addDays(issueDate, draft.dueInDays);
    // The gapless number: from here to commit the (prefix, year) counter row stays locked.
    const seq = await nextInvoiceNumber(tx, config.billingInvoicePrefix, year);
    const number = `${config.billingInvoicePrefix}-${year}-${String(seq).padStart(6, '0')}`;
    const instructions = {
      payee_name: config.billingPayeeName,
      iban: config.billingPayeeIban,
      bic: config.billingPayeeBic,
      reference: number,
    };
    const po = draft.purchaseOrderNumber ?? purchaseOrderNumber;
    const pdf = await renderInvoicePdf({
      number,
      issueDate,
      dueDate,
      periodStart: draft.periodStart,
      periodEnd: draft.periodEnd,
      currency: draft.currency,
      subtotal: draft.subtotal,
      taxTotal: draft.taxTotal,
      total: draft.total,
      purchaseOrderNumber: po,
      billingDetails: details,
      paymentInstructions: instructions,
      payeeName: config.billingPayeeName ?? 'Payments Platform',
      lines: lines.map((l) => ({
        description: l.description,
        quantity: l.quantity,
        unitAmount: l.unitAmount,
        taxRate: l.taxRate,
        amount: l.amount,
      })),
      watermark: config.environment === 'sandbox',
    });
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    await insertPdf(tx, {
      invoiceId: id,
      clientId: draft.clientId,
      content: pdf,
      sha256,
      size: pdf.length,
      createdAt: now,
    });
    const collect = config.billingCollectionProjectId !== null && !isZero(draft.amountDue);
    const recipient = details.billing_email;
    const moved = await moveInvoice(tx, draft, 'finalize', {
      now,
      extra: {
        number,
        issueDate,
        dueDate,
        finalizedAt: now,
        billingDetails: details,
        paymentInstructions: instructions,
        purchaseOrderNumber: po,
        paymentLinkState: collect ? 'pending' : 'none',
        // With a payment link to come, the email waits for it (so it can carry the link).
        emailState: recipient ? (collect ? 'waiting' : 'pending') : 'none',
        emailRecipient: recipient,
      },
    });
    if (collect) linkJob = await oweInvoicePaymentLink(tx, now, id, draft.clientId);
    else if (recipient) await oweInvoiceEmail(tx, now, id, draft.clientId);
    await recordActivity(tx, {
      clientId: draft.clientId,
      action: 'invoice.finalized',
      at: now,
      target: invoiceTarget(moved),
      changes: { status: { from: 'draft', to: 'open' } },
      metadata: {
        number,
        total: moved.total,
        currency: moved.currency,
        due_date: dueDate,
        pdf_sha256: sha256,
      },
    });
  });
  // The link's first attempt right after the commit, so the answer carries it.
  await runJobsNow(deps, [invoicePaymentLinkJob as JobDefinition<never>], [linkJob]);
  return getAdminInvoice(deps, id);
}
