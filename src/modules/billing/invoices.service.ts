/**
 * Invoices, staff side (docs/guides/invoices.md): drafts from lines or from usage, edits and
 * deletion of drafts, mark-paid, mark-uncollectible, void, reissue, lists. Finalization is in
 * invoice-finalize.service.ts. Drafts are invisible to the client, so their creation and edits write
 * no activity entry (the activity log is the client's to read); every later change does.
 */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { compare } from '../../platform/decimal';
import { notFound, ValidationError, type ValidationIssue } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { type PaymentLimits, paymentCurrencyProblem } from '../../shared/payment-money';
import { recordActivity } from '../activity/activity-writer.service';
import { findTransactionById } from '../payments/payments.repo';
import { cancelTransaction } from '../payments/payments.service';
import { AUTOMATIC } from '../payments/status.service';
import {
  canReissue,
  type InvoiceStatus,
  isDraft,
  isTerminal as isInvoiceTerminal,
  refuse,
} from './billing.machine';
import { BillingMessages } from './billing.messages';
import {
  deleteDraft,
  findInvoice,
  type InvoiceRow,
  insertInvoice,
  linesOf,
  listInvoices,
  type NewLine,
  pdfHashes,
  recomputeTotals,
  replaceLines,
  retaxLines,
  updateInvoice,
} from './billing.repo';
import type { CreateInvoiceInput, LineInputT, PatchInvoiceInput } from './billing.schemas';
import { toAdminInvoiceView } from './billing.view';
import { requirePriceList, usageLines } from './billing-usage.service';
import { moveInvoice } from './invoices.transitions';

export const invoiceTarget = (i: InvoiceRow) => ({ type: 'invoice', id: i.id, label: i.number ?? 'draft' });

/** A percent string (schema: up to 3 integer digits) above 100. */
const above100 = (rate: string): boolean => compare(rate, '100') > 0;

/**
 * Checks a schema cannot express, as one 422. The currency is a payment's (an invoice is paid by a
 * payment link or a bank transfer): a currency of payment the deployment accepts.
 */
function validateInvoice(
  limits: PaymentLimits,
  v: {
    currency?: string;
    period_start?: string;
    period_end?: string;
    tax_rate?: string;
    lines?: LineInputT[];
  },
): void {
  const issues: ValidationIssue[] = [];
  const currencyProblem = v.currency === undefined ? null : paymentCurrencyProblem(limits, v.currency);
  if (currencyProblem) issues.push({ loc: ['body', 'currency'], msg: currencyProblem, type: 'value_error' });
  if (v.period_start && v.period_end && v.period_end < v.period_start)
    issues.push({ loc: ['body', 'period_end'], msg: BillingMessages.periodOrder, type: 'value_error' });
  const rateProblem = 'Tax rate must be between 0 and 100 percent';
  if (v.tax_rate !== undefined && above100(v.tax_rate))
    issues.push({ loc: ['body', 'tax_rate'], msg: rateProblem, type: 'value_error' });
  for (const [i, l] of (v.lines ?? []).entries()) {
    if (l.tax_rate !== undefined && above100(l.tax_rate))
      issues.push({ loc: ['body', 'lines', i, 'tax_rate'], msg: rateProblem, type: 'value_error' });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

const toNewLines = (lines: LineInputT[]): NewLine[] =>
  lines.map((l) => ({ ...l, tax_rate: l.tax_rate ?? null }));

/** The admin view of invoices (lines and PDF hashes in one query each). */
export async function adminViews(db: DbOrTx, rows: InvoiceRow[]) {
  const ids = rows.map((r) => r.id);
  const [lines, hashes] = await Promise.all([linesOf(db, ids), pdfHashes(db, ids)]);
  return rows.map((r) => toAdminInvoiceView(r, lines.get(r.id) ?? [], hashes.get(r.id) ?? null));
}

export async function getAdminInvoice(deps: Pick<Deps, 'db'>, id: string) {
  const row = await findInvoice(deps.db, id);
  if (!row) throw notFound(M.invoiceNotFound);
  return (await adminViews(deps.db, [row]))[0]!;
}

export async function listAdminInvoices(
  deps: Pick<Deps, 'db'>,
  page: PageParams,
  f: { client_id?: string; status?: InvoiceStatus },
) {
  const { rows, total } = await listInvoices(
    deps.db,
    { clientId: f.client_id, status: f.status, excludeDrafts: false },
    page,
  );
  return { invoices: await adminViews(deps.db, rows), pagination: paginationMeta(total, page) };
}

async function assertClientExists(db: DbOrTx, clientId: string) {
  const res = await db.execute(sql`select 1 as ok from clients where id = ${clientId}::uuid`);
  if (rowsOf(res).length === 0) throw notFound(M.clientNotFound);
}

/** POST /admin/billing/invoices: a draft from lines, or from the period's usage × the price list. */
export async function createDraftInvoice(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  input: CreateInvoiceInput & { sample?: boolean },
) {
  validateInvoice(deps.config, input);
  if ((input.lines === undefined) === (input.from_usage !== true))
    throw new ValidationError([
      { loc: ['body', 'lines'], msg: BillingMessages.linesOrUsage, type: 'value_error' },
    ]);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    await assertClientExists(tx, input.client_id);
    let lines: NewLine[];
    if (input.from_usage) {
      const prices = await requirePriceList(tx, deps.config.environment, input.client_id);
      if (prices.currency !== input.currency)
        throw new ValidationError([
          {
            loc: ['body', 'currency'],
            msg: BillingMessages.currencyMismatch(prices.currency),
            type: 'value_error',
          },
        ]);
      const usage = await usageLines(tx, input.client_id, prices, input.period_start, input.period_end);
      lines = usage.filter((l) => l.quantity >= 1).map((l) => ({ ...l, tax_rate: null }));
    } else {
      lines = toNewLines(input.lines!);
    }
    const draft = await insertInvoice(tx, {
      clientId: input.client_id,
      status: 'draft',
      currency: input.currency,
      periodStart: input.period_start,
      periodEnd: input.period_end,
      dueInDays: input.due_in_days ?? deps.config.billingDefaultDueDays,
      purchaseOrderNumber: input.purchase_order_number ?? null,
      amountPaid: '0.00',
      sample: input.sample ?? false,
      createdAt: now,
      updatedAt: now,
    });
    await replaceLines(tx, draft, lines, input.tax_rate ?? '0');
    return recomputeTotals(tx, draft.id, now);
  });
  return (await adminViews(deps.db, [row]))[0]!;
}

async function lockDraft(tx: DbOrTx, id: string): Promise<InvoiceRow> {
  const row = await findInvoice(tx, id, { forUpdate: true });
  if (!row) throw notFound(M.invoiceNotFound);
  if (!isDraft(row.status)) refuse(row.status);
  return row;
}

export async function patchDraftInvoice(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  id: string,
  input: PatchInvoiceInput,
) {
  validateInvoice(deps.config, input);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const draft = await lockDraft(tx, id);
    const periodStart = input.period_start ?? draft.periodStart;
    const periodEnd = input.period_end ?? draft.periodEnd;
    validateInvoice(deps.config, { period_start: periodStart, period_end: periodEnd });
    await updateInvoice(tx, id, {
      currency: input.currency ?? draft.currency,
      periodStart,
      periodEnd,
      dueInDays: input.due_in_days ?? draft.dueInDays,
      purchaseOrderNumber:
        input.purchase_order_number === undefined ? draft.purchaseOrderNumber : input.purchase_order_number,
    });
    if (input.lines) await replaceLines(tx, draft, toNewLines(input.lines), input.tax_rate ?? '0');
    else if (input.tax_rate !== undefined) await retaxLines(tx, id, input.tax_rate);
    return recomputeTotals(tx, id, now);
  });
  return (await adminViews(deps.db, [row]))[0]!;
}

export async function deleteDraftInvoice(deps: Pick<Deps, 'db'>, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    await lockDraft(tx, id);
    await deleteDraft(tx, id);
  });
}

/** After a settlement by other means, the invoice's still-open payment link is canceled (best effort). */
async function cancelLinkedPayment(deps: Deps, inv: InvoiceRow): Promise<void> {
  if (!inv.transactionId) return;
  const t = await findTransactionById(deps.db, inv.transactionId);
  if (!t || ['success', 'failed', 'expired', 'canceled'].includes(t.status)) return;
  await cancelTransaction(deps, t, AUTOMATIC, `Invoice ${inv.number} settled otherwise`).catch((err) =>
    deps.log.warn({ err, invoiceId: inv.id }, 'could not cancel the invoice payment link'),
  );
}

/** A staff action on a finalized invoice: lock, machine, move, activity; then the after-commit work. */
async function staffAction(
  deps: Deps,
  id: string,
  transition: 'mark_paid' | 'mark_uncollectible' | 'void',
  extra: (inv: InvoiceRow, now: Date) => Partial<InvoiceRow>,
  action: string,
  metadata: Record<string, unknown> = {},
) {
  const now = deps.clock.now();
  const moved = await deps.db.transaction(async (tx) => {
    const inv = await findInvoice(tx, id, { forUpdate: true });
    if (!inv) throw notFound(M.invoiceNotFound);
    const row = await moveInvoice(tx, inv, transition, { now, extra: extra(inv, now) });
    await recordActivity(tx, {
      clientId: inv.clientId,
      action,
      at: now,
      target: invoiceTarget(inv),
      changes: { status: { from: inv.status, to: row.status } },
      metadata,
    });
    return row;
  });
  if (isInvoiceTerminal(moved.status)) await cancelLinkedPayment(deps, moved);
  return getAdminInvoice(deps, id);
}

export function markInvoicePaid(deps: Deps, id: string, input: { paid_at?: string; reference?: string }) {
  return staffAction(
    deps,
    id,
    'mark_paid',
    (inv, now) => ({
      paidAt: input.paid_at ? new Date(input.paid_at) : now,
      paymentReference: input.reference ?? null,
      amountPaid: inv.total,
      amountDue: '0.00',
    }),
    'invoice.marked_paid',
    { reference: input.reference ?? null },
  );
}

export function markInvoiceUncollectible(deps: Deps, id: string) {
  return staffAction(
    deps,
    id,
    'mark_uncollectible',
    (_inv, now) => ({ uncollectibleAt: now }),
    'invoice.marked_uncollectible',
  );
}

export function voidInvoice(deps: Deps, id: string, reason: string) {
  return staffAction(
    deps,
    id,
    'void',
    (_inv, now) => ({ voidedAt: now, voidReason: reason.trim() }),
    'invoice.voided',
    { reason: reason.trim() },
  );
}

/** A corrected draft from a void invoice: same client, period, terms and lines, `replaces_invoice_id` set. */
export async function reissueInvoice(deps: Pick<Deps, 'db' | 'clock'>, id: string) {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const old = await findInvoice(tx, id, { forUpdate: true });
    if (!old) throw notFound(M.invoiceNotFound);
    if (!canReissue(old.status)) refuse(old.status);
    const draft = await insertInvoice(tx, {
      clientId: old.clientId,
      status: 'draft',
      currency: old.currency,
      periodStart: old.periodStart,
      periodEnd: old.periodEnd,
      dueInDays: old.dueInDays,
      purchaseOrderNumber: old.purchaseOrderNumber,
      amountPaid: '0.00',
      replacesInvoiceId: old.id,
      createdAt: now,
      updatedAt: now,
    });
    const lines = (await linesOf(tx, [old.id])).get(old.id) ?? [];
    await replaceLines(
      tx,
      draft,
      lines.map((l) => ({
        description: l.description,
        category: l.category as NewLine['category'],
        quantity: l.quantity,
        unit_amount: l.unitAmount,
        tax_rate: l.taxRate,
      })),
      '0',
    );
    return recomputeTotals(tx, draft.id, now);
  });
  return (await adminViews(deps.db, [row]))[0]!;
}
