import { desc, sql } from 'drizzle-orm';
import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export interface InvoiceBillingDetails {
  company_name: string | null;
  address: Record<string, string | null> | null;
  vat_number: string | null;
  billing_email: string | null;
}

export interface InvoicePaymentInstructions {
  payee_name: string | null;
  iban: string | null;
  bic: string | null;
  reference: string | null;
}

export const INVOICE_STATUSES = ['draft', 'open', 'overdue', 'paid', 'uncollectible', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * An invoice the platform issues to a client. Money is NUMERIC and is
 * computed in SQL. `status` moves only through modules/billing/billing.machine.ts with
 * compare-and-set updates. `number` is assigned at finalization from invoice_number_counters.
 * The email to billing_email and the payment link are due work carried on the row (state + next
 * attempt), done by the billing workers outside any transaction.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    number: text('number'),
    status: text('status').$type<InvoiceStatus>().notNull(),
    currency: text('currency').notNull(),
    periodStart: date('period_start', { mode: 'string' }).notNull(),
    periodEnd: date('period_end', { mode: 'string' }).notNull(),
    dueInDays: integer('due_in_days').notNull(),
    issueDate: date('issue_date', { mode: 'string' }),
    dueDate: date('due_date', { mode: 'string' }),
    subtotal: numeric('subtotal').notNull().default('0'),
    taxTotal: numeric('tax_total').notNull().default('0'),
    total: numeric('total').notNull().default('0'),
    amountPaid: numeric('amount_paid').notNull().default('0'),
    amountDue: numeric('amount_due').notNull().default('0'),
    purchaseOrderNumber: text('purchase_order_number'),
    /** Copied from the client's billing details at finalization. */
    billingDetails: jsonb('billing_details').$type<InvoiceBillingDetails | null>(),
    /** Copied from the payee configuration at finalization. */
    paymentInstructions: jsonb('payment_instructions').$type<InvoicePaymentInstructions | null>(),
    /** none (no collection project), pending (to create), created, failed (gave up) */
    paymentLinkState: text('payment_link_state').notNull().default('none'),
    paymentLinkAttempts: integer('payment_link_attempts').notNull().default(0),
    paymentLinkNextAt: ts('payment_link_next_at'),
    paymentLinkError: text('payment_link_error'),
    paymentUrl: text('payment_url'),
    transactionId: uuid('transaction_id'),
    replacesInvoiceId: uuid('replaces_invoice_id'),
    finalizedAt: ts('finalized_at'),
    paidAt: ts('paid_at'),
    paymentReference: text('payment_reference'),
    voidedAt: ts('voided_at'),
    voidReason: text('void_reason'),
    uncollectibleAt: ts('uncollectible_at'),
    /** A sandbox sample made by POST /sandbox/billing/invoices. */
    sample: boolean('sample').notNull().default(false),
    /** none (no recipient), waiting (for the payment link), pending, sent, failed */
    emailState: text('email_state').notNull().default('none'),
    emailRecipient: text('email_recipient'),
    emailAttempts: integer('email_attempts').notNull().default(0),
    emailLastError: text('email_last_error'),
    emailedAt: ts('emailed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('invoices_number_uq').on(t.number),
    // Client list: drafts are never listed.
    index('invoices_client_created_idx')
      .on(t.clientId, desc(t.createdAt), desc(t.id))
      .where(sql`status <> 'draft'`),
    index('invoices_client_status_created_idx').on(t.clientId, t.status, desc(t.createdAt)),
    // Staff list over every client.
    index('invoices_created_idx').on(desc(t.createdAt), desc(t.id)),
    index('invoices_status_created_idx').on(t.status, desc(t.createdAt)),
    index('invoices_payment_link_due_idx').on(t.paymentLinkNextAt).where(sql`payment_link_state = 'pending'`),
  ],
);

/** An invoice line; amount = round(quantity × unit_amount, 2), tax_amount = round(amount × tax_rate / 100, 2). */
export const invoiceLines = pgTable(
  'invoice_lines',
  {
    id: idColumn('id'),
    invoiceId: uuid('invoice_id')
      .notNull()
      .references(() => invoices.id, { onDelete: 'cascade' }),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    position: integer('position').notNull(),
    description: text('description').notNull(),
    category: text('category').notNull(),
    quantity: integer('quantity').notNull(),
    unitAmount: numeric('unit_amount').notNull(),
    amount: numeric('amount').notNull(),
    /** Percent, e.g. 20 or 7.7 */
    taxRate: numeric('tax_rate').notNull(),
    taxAmount: numeric('tax_amount').notNull(),
  },
  (t) => [index('invoice_lines_invoice_idx').on(t.invoiceId, t.position)],
);

/**
 * The gapless invoice sequence: one row per prefix and year, bumped (row-locked) in the finalizing
 * transaction, so a rolled-back finalization gives its number back. A PostgreSQL SEQUENCE would not:
 * nextval is never rolled back, which leaves gaps.
 */
export const invoiceNumberCounters = pgTable(
  'invoice_number_counters',
  {
    prefix: text('prefix').notNull(),
    year: integer('year').notNull(),
    lastNumber: integer('last_number').notNull(),
  },
  (t) => [primaryKey({ columns: [t.prefix, t.year] })],
);
