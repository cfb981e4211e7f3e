/** Rows to the API shapes of invoices. */
import type { InvoiceRow, LineRow } from './billing.repo';
import type { LineCategory } from './billing.schemas';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toInvoiceView(i: InvoiceRow, lines: LineRow[]) {
  return {
    invoice_id: i.id,
    number: i.number,
    status: i.status,
    currency: i.currency,
    period_start: i.periodStart,
    period_end: i.periodEnd,
    issue_date: i.issueDate,
    due_date: i.dueDate,
    subtotal: i.subtotal,
    tax_total: i.taxTotal,
    total: i.total,
    amount_paid: i.amountPaid,
    amount_due: i.amountDue,
    purchase_order_number: i.purchaseOrderNumber,
    billing_details: i.billingDetails ?? null,
    payment_instructions: i.paymentInstructions ?? null,
    payment_url: i.paymentUrl,
    transaction_id: i.transactionId,
    replaces_invoice_id: i.replacesInvoiceId,
    paid_at: iso(i.paidAt),
    voided_at: iso(i.voidedAt),
    void_reason: i.voidReason,
    created_at: i.createdAt.toISOString(),
    lines: lines.map((l) => ({
      line_id: l.id,
      description: l.description,
      category: l.category as LineCategory,
      quantity: l.quantity,
      unit_amount: l.unitAmount,
      amount: l.amount,
      tax_rate: l.taxRate,
      tax_amount: l.taxAmount,
    })),
  };
}

export function toAdminInvoiceView(i: InvoiceRow, lines: LineRow[], pdfSha256: string | null) {
  return {
    ...toInvoiceView(i, lines),
    client_id: i.clientId,
    due_in_days: i.dueInDays,
    payment_reference: i.paymentReference,
    payment_link: {
      state: i.paymentLinkState as 'none' | 'pending' | 'created' | 'failed',
      attempts: i.paymentLinkAttempts,
      last_error: i.paymentLinkError,
    },
    email: {
      state: i.emailState as 'none' | 'waiting' | 'pending' | 'sent' | 'failed',
      recipient: i.emailRecipient,
      attempts: i.emailAttempts,
      last_error: i.emailLastError,
      sent_at: iso(i.emailedAt),
    },
    pdf_sha256: pdfSha256,
  };
}
