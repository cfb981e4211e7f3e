/**
 * Billing, the client's side: invoices (never drafts), the immutable PDF, the usage estimate, billing
 * details; the staff price lists; and the sandbox sample invoice and its simulations.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { isoDate, startOfMonth } from '../../platform/calendar';
import { AppError, notFound } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { diffChanges, recordActivity } from '../activity/activity-writer.service';
import { PaymentMessages } from '../payments/payments.messages';
import { findTransactionById } from '../payments/payments.repo';
import { assertCanApply, type InvoiceStatus } from './billing.machine';
import { BillingMessages } from './billing.messages';
import {
  findBillingDetails,
  findInvoice,
  findPdf,
  findPriceList,
  type InvoiceRow,
  linesOf,
  listInvoices,
  type PriceListRow,
  upsertBillingDetails,
  upsertPriceList,
} from './billing.repo';
import { type LineInputT, PRICE_KEYS, type PriceKey } from './billing.schemas';
import { toInvoiceView } from './billing.view';
import {
  type EffectivePriceList,
  estimateCurrentUsage,
  findEffectivePriceList,
  priceColumns,
  priceOf,
} from './billing-usage.service';
import { finalizeInvoice } from './invoice-finalize.service';
import { createDraftInvoice, invoiceTarget, markInvoicePaid } from './invoices.service';
import { moveInvoice } from './invoices.transitions';

async function clientViews(deps: Pick<Deps, 'db'>, rows: InvoiceRow[]) {
  const lines = await linesOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toInvoiceView(r, lines.get(r.id) ?? []));
}

export async function listClientInvoices(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  f: { status?: InvoiceStatus; from?: string; to?: string },
) {
  const { rows, total } = await listInvoices(deps.db, { clientId, excludeDrafts: true, ...f }, page);
  return { invoices: await clientViews(deps, rows), pagination: paginationMeta(total, page) };
}

export async function getClientInvoice(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const row = await findInvoice(deps.db, id, { clientId });
  if (!row) throw notFound(M.invoiceNotFound);
  return (await clientViews(deps, [row]))[0]!;
}

/** The PDF stored at finalization, checked against its recorded sha256; the download is logged. */
export async function downloadInvoicePdf(deps: Pick<Deps, 'db' | 'clock'>, clientId: string, id: string) {
  const row = await findInvoice(deps.db, id, { clientId });
  if (!row) throw notFound(M.invoiceNotFound);
  const pdf = await findPdf(deps.db, id);
  if (!pdf) throw new AppError(500, BillingMessages.pdfMissing);
  if (createHash('sha256').update(pdf.content).digest('hex') !== pdf.sha256)
    throw new AppError(500, BillingMessages.pdfCorrupt);
  await recordActivity(deps.db, {
    clientId,
    action: 'invoice.downloaded',
    at: deps.clock.now(),
    target: invoiceTarget(row),
  });
  return { fileName: `${row.number}.pdf`, content: pdf.content };
}

export function getUsage(deps: Pick<Deps, 'db' | 'clock' | 'config'>, clientId: string) {
  return estimateCurrentUsage(deps.db, deps.config.environment, clientId, deps.clock.now());
}

// ---- billing details ----

export async function getBillingDetails(deps: Pick<Deps, 'db'>, clientId: string) {
  const row = await findBillingDetails(deps.db, clientId);
  if (row)
    return {
      company_name: row.companyName,
      address: row.address ?? null,
      vat_number: row.vatNumber,
      billing_email: row.billingEmail,
      purchase_order_number: row.purchaseOrderNumber,
      updated_at: row.updatedAt.toISOString(),
    };
  // Until the client sets them: the registration name and email (what an invoice would carry).
  const res = await deps.db.execute(
    sql`select company_name, email from clients where id = ${clientId}::uuid`,
  );
  const c = rowsOf<{ company_name: string; email: string }>(res)[0]!;
  return {
    company_name: c.company_name,
    address: null,
    vat_number: null,
    billing_email: c.email,
    purchase_order_number: null,
    updated_at: null,
  };
}

export async function putBillingDetails(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  input: {
    company_name: string;
    address?: Record<string, string | null | undefined> | null;
    vat_number?: string | null;
    billing_email: string;
    purchase_order_number?: string | null;
  },
) {
  const before = await getBillingDetails(deps, clientId);
  const now = deps.clock.now();
  const address = input.address
    ? Object.fromEntries(Object.entries(input.address).map(([k, v]) => [k, v ?? null]))
    : null;
  await deps.db.transaction(async (tx) => {
    const row = await upsertBillingDetails(tx, {
      clientId,
      companyName: input.company_name.trim(),
      address,
      vatNumber: input.vat_number ?? null,
      billingEmail: input.billing_email.trim(),
      purchaseOrderNumber: input.purchase_order_number ?? null,
      updatedAt: now,
    });
    await recordActivity(tx, {
      clientId,
      action: 'billing_details.updated',
      at: now,
      target: { type: 'billing_details', id: clientId, label: row.companyName },
      changes: diffChanges(before, {
        company_name: row.companyName,
        address: row.address,
        vat_number: row.vatNumber,
        billing_email: row.billingEmail,
        purchase_order_number: row.purchaseOrderNumber,
      }),
    });
  });
  return getBillingDetails(deps, clientId);
}

// ---- price lists (staff) ----

function priceListView(p: PriceListRow, source: EffectivePriceList['source'] = 'custom') {
  return {
    client_id: p.clientId,
    currency: p.currency,
    prices: Object.fromEntries(PRICE_KEYS.map((k) => [k, priceOf(p, k)])) as Record<PriceKey, string>,
    source,
    updated_at: source === 'custom' ? p.updatedAt.toISOString() : null,
  };
}

/** The list a client is billed from: staff's, or in sandbox the default (`source: "sandbox_default"`). */
export async function getPriceList(deps: Pick<Deps, 'db' | 'config'>, clientId: string) {
  const p = await findEffectivePriceList(deps.db, deps.config.environment, clientId);
  if (!p) throw notFound(BillingMessages.noPriceList);
  return priceListView(p.row, p.source);
}

export async function putPriceList(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  input: { currency: string; prices: Record<PriceKey, string> },
) {
  const now = deps.clock.now();
  const res = await deps.db.execute(sql`select 1 as ok from clients where id = ${clientId}::uuid`);
  if (rowsOf(res).length === 0) throw notFound(M.clientNotFound);
  const before = await findPriceList(deps.db, clientId);
  const row = await deps.db.transaction(async (tx) => {
    const saved = await upsertPriceList(tx, {
      clientId,
      currency: input.currency,
      ...priceColumns(input.prices),
      createdAt: now,
      updatedAt: now,
    });
    const after = priceListView(saved);
    await recordActivity(tx, {
      clientId,
      action: 'billing_prices.updated',
      at: now,
      target: { type: 'billing_price_list', id: clientId, label: after.currency },
      changes: diffChanges(before ? { currency: before.currency, ...priceListView(before).prices } : {}, {
        currency: after.currency,
        ...after.prices,
      }),
    });
    return saved;
  });
  return priceListView(row);
}

// ---- sandbox ----

function assertSandbox(deps: Pick<Deps, 'config'>) {
  if (deps.config.environment !== 'sandbox') throw notFound(M.notFound);
}

const SAMPLE_LINES: LineInputT[] = [
  { description: 'Platform fee (sample)', category: 'platform_fee', quantity: 1, unit_amount: '49.00' },
  {
    description: 'Successful payments (sample)',
    category: 'transaction_fee',
    quantity: 120,
    unit_amount: '0.25',
  },
  {
    description: 'KYC verifications (sample)',
    category: 'kyc_verification',
    quantity: 8,
    unit_amount: '1.50',
  },
];

/** POST /sandbox/billing/invoices: a finalized sample invoice for the caller, watermarked SANDBOX. */
export async function createSampleInvoice(deps: Deps, clientId: string, input: { lines?: LineInputT[] }) {
  assertSandbox(deps);
  const now = deps.clock.now();
  const periodStart = isoDate(startOfMonth(now));
  const periodEnd = isoDate(now);
  const draft = await createDraftInvoice(deps, {
    client_id: clientId,
    currency: 'EUR',
    period_start: periodStart,
    period_end: periodEnd,
    lines: input.lines ?? SAMPLE_LINES,
    tax_rate: '20',
    sample: true,
  });
  await finalizeInvoice(deps, draft.invoice_id);
  return getClientInvoice(deps, clientId, draft.invoice_id);
}

/**
 * POST /sandbox/billing/invoices/{id}/simulate. `pay`: the sandbox bank completes the invoice's payment
 * link (the production path: signed notification, payment listener), or, without a link, the invoice
 * is marked paid as staff would. `overdue`: the sweeper's move, now. A move the status does not allow
 * answers the real action's 400.
 */
export async function simulateInvoice(deps: Deps, clientId: string, id: string, action: 'pay' | 'overdue') {
  assertSandbox(deps);
  const inv = await findInvoice(deps.db, id, { clientId });
  if (!inv) throw notFound(M.invoiceNotFound);
  if (action === 'overdue') {
    const now = deps.clock.now();
    await deps.db.transaction(async (tx) => {
      const locked = (await findInvoice(tx, id, { clientId, forUpdate: true }))!;
      const row = await moveInvoice(tx, locked, 'mark_overdue', { now });
      await recordActivity(tx, {
        clientId,
        action: 'invoice.overdue',
        at: now,
        target: invoiceTarget(locked),
        changes: { status: { from: locked.status, to: row.status } },
        metadata: { simulated: true },
      });
    });
    return getClientInvoice(deps, clientId, id);
  }
  assertCanApply('payment_success', inv.status);
  const t = inv.transactionId ? await findTransactionById(deps.db, inv.transactionId) : null;
  if (t && (t.status === 'pending' || t.status === 'processing') && deps.providers.bank.simulate) {
    try {
      await deps.providers.bank.simulate(t.refId, 'completed');
    } catch (err) {
      deps.log.error({ err, invoiceId: id }, 'sandbox invoice payment simulation failed');
      throw new AppError(503, PaymentMessages.paymentNetworkUnavailable);
    }
  } else {
    await markInvoicePaid(deps, id, { reference: 'sandbox simulation' });
  }
  return getClientInvoice(deps, clientId, id);
}
