/**
 * The queries of billing. Money never passes through a JS number: a line's amount and tax are
 * computed with the decimal module (src/platform/decimal.ts), the sums over an invoice's stored
 * lines by PostgreSQL in NUMERIC; both round half-up (half away from zero, PostgreSQL's round()) to
 * 2 decimals per line.
 */
import { and, asc, count, desc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import {
  billingDetails,
  billingPriceLists,
  invoiceLines,
  invoiceNumberCounters,
  invoicePdfs,
  invoices,
} from '../../db/schema/index';
import { mulInt, mulRate, round } from '../../platform/decimal';
import { newId } from '../../shared/ids';
import type { PageParams } from '../../shared/pagination';
import type { InvoiceStatus } from './billing.machine';
import type { LineCategory } from './billing.schemas';

export type InvoiceRow = typeof invoices.$inferSelect;
export type LineRow = typeof invoiceLines.$inferSelect;
export type PriceListRow = typeof billingPriceLists.$inferSelect;
export type BillingDetailsRow = typeof billingDetails.$inferSelect;
export type InvoiceChanges = Partial<Omit<typeof invoices.$inferInsert, 'id' | 'clientId'>>;

export interface NewLine {
  description: string;
  category: LineCategory;
  quantity: number;
  unit_amount: string;
  /** Percent; null takes the invoice's default. */
  tax_rate: string | null;
}

/** An invoice; `clientId` scopes it to a client (which never sees drafts), null for staff. */
export async function findInvoice(
  db: DbOrTx,
  id: string,
  opts: { clientId?: string | null; forUpdate?: boolean } = {},
): Promise<InvoiceRow | undefined> {
  const where = opts.clientId
    ? and(eq(invoices.id, id), eq(invoices.clientId, opts.clientId), ne(invoices.status, 'draft'))
    : eq(invoices.id, id);
  const q = db.select().from(invoices).where(where);
  const [row] = opts.forUpdate ? await q.for('update') : await q;
  return row;
}

export async function insertInvoice(tx: DbOrTx, values: typeof invoices.$inferInsert): Promise<InvoiceRow> {
  const [row] = await tx.insert(invoices).values(values).returning();
  return row!;
}

export async function updateInvoice(tx: DbOrTx, id: string, changes: InvoiceChanges): Promise<InvoiceRow> {
  const [row] = await tx.update(invoices).set(changes).where(eq(invoices.id, id)).returning();
  return row!;
}

export async function deleteDraft(tx: DbOrTx, id: string): Promise<boolean> {
  const rows = await tx
    .delete(invoices)
    .where(and(eq(invoices.id, id), eq(invoices.status, 'draft')))
    .returning({ id: invoices.id });
  return rows.length > 0;
}

/** A line's amount: quantity × unit amount, rounded half-up to 2 decimals. */
export const lineAmount = (quantity: number, unitAmount: string): string =>
  round(mulInt(unitAmount, quantity), 2, 'half-up');

/** A line's tax: amount × rate %, rounded half-up to 2 decimals. */
export const lineTax = (amount: string, ratePercent: string): string =>
  mulRate(amount, ratePercent, 2, 'half-up', 100);

/** Replaces an invoice's lines with their amount and tax. */
export async function replaceLines(
  tx: DbOrTx,
  invoice: { id: string; clientId: string },
  lines: NewLine[],
  defaultTaxRate: string,
): Promise<void> {
  await tx.delete(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id));
  if (lines.length === 0) return;
  const values = lines.map((l, i) => {
    const rate = l.tax_rate ?? defaultTaxRate;
    const amount = lineAmount(l.quantity, l.unit_amount);
    return sql`(${newId()}::uuid, ${invoice.id}::uuid, ${invoice.clientId}::uuid, ${i + 1}, ${l.description},
      ${l.category}, ${l.quantity}::int, ${l.unit_amount}::numeric, ${amount}::numeric, ${rate}::numeric,
      ${lineTax(amount, rate)}::numeric)`;
  });
  await tx.execute(sql`
    insert into invoice_lines (id, invoice_id, client_id, position, description, category, quantity,
                               unit_amount, amount, tax_rate, tax_amount)
    values ${sql.join(values, sql`, `)}`);
}

/** Every line of an invoice at a new tax rate: its tax recomputed from its amount. */
export async function retaxLines(tx: DbOrTx, invoiceId: string, ratePercent: string): Promise<void> {
  const lines = await tx
    .select({ id: invoiceLines.id, amount: invoiceLines.amount })
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoiceId));
  if (lines.length === 0) return;
  const values = lines.map((l) => sql`(${l.id}::uuid, ${lineTax(l.amount, ratePercent)}::numeric)`);
  await tx.execute(sql`
    update invoice_lines l set tax_rate = ${ratePercent}::numeric, tax_amount = v.tax
      from (values ${sql.join(values, sql`, `)}) v(id, tax)
     where l.id = v.id and l.invoice_id = ${invoiceId}::uuid`);
}

/** subtotal = Σ amount, tax_total = Σ tax_amount (tax per line), total, amount_due = total − amount_paid. */
export async function recomputeTotals(tx: DbOrTx, id: string, now: Date): Promise<InvoiceRow> {
  const res = await tx.execute(sql`
    update invoices i
       set subtotal = s.subtotal, tax_total = s.tax, total = s.subtotal + s.tax,
           amount_due = s.subtotal + s.tax - i.amount_paid, updated_at = ${now.toISOString()}::timestamptz
      from (select round(coalesce(sum(amount), 0), 2) as subtotal, round(coalesce(sum(tax_amount), 0), 2) as tax
              from invoice_lines where invoice_id = ${id}::uuid) s
     where i.id = ${id}::uuid
    returning i.id`);
  if (rowsOf(res).length === 0) throw new Error(`invoice ${id} vanished`);
  return (await findInvoice(tx, id))!;
}

export async function linesOf(db: DbOrTx, invoiceIds: string[]): Promise<Map<string, LineRow[]>> {
  const out = new Map<string, LineRow[]>();
  if (invoiceIds.length === 0) return out;
  const rows = await db
    .select()
    .from(invoiceLines)
    .where(inArray(invoiceLines.invoiceId, invoiceIds))
    .orderBy(asc(invoiceLines.invoiceId), asc(invoiceLines.position));
  for (const r of rows) out.set(r.invoiceId, [...(out.get(r.invoiceId) ?? []), r]);
  return out;
}

export interface InvoiceFilter {
  clientId?: string;
  /** Client lists never show drafts. */
  excludeDrafts: boolean;
  status?: InvoiceStatus;
  from?: string;
  to?: string;
}

export async function listInvoices(
  db: DbOrTx,
  f: InvoiceFilter,
  page: PageParams,
): Promise<{ rows: InvoiceRow[]; total: number }> {
  const where: SQL[] = [];
  if (f.clientId) where.push(eq(invoices.clientId, f.clientId));
  if (f.excludeDrafts) where.push(ne(invoices.status, 'draft'));
  if (f.status) where.push(eq(invoices.status, f.status));
  if (f.from) where.push(sql`${invoices.createdAt} >= ${f.from}::timestamptz`);
  if (f.to) where.push(sql`${invoices.createdAt} < ${f.to}::timestamptz`);
  const cond = where.length > 0 ? and(...where) : undefined;
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(invoices)
      .where(cond)
      .orderBy(desc(invoices.createdAt), desc(invoices.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(invoices).where(cond),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/**
 * The next number of the gapless sequence for `prefix` and `year`. The counter row is created or
 * bumped with an upsert, which keeps it row-locked (like SELECT … FOR UPDATE) until the finalizing
 * transaction ends: concurrent finalizations queue here, and a rollback gives the number back.
 */
export async function nextInvoiceNumber(tx: DbOrTx, prefix: string, year: number): Promise<number> {
  const [row] = await tx
    .insert(invoiceNumberCounters)
    .values({ prefix, year, lastNumber: 1 })
    .onConflictDoUpdate({
      target: [invoiceNumberCounters.prefix, invoiceNumberCounters.year],
      set: { lastNumber: sql`${invoiceNumberCounters.lastNumber} + 1` },
    })
    .returning({ n: invoiceNumberCounters.lastNumber });
  return row!.n;
}

export async function insertPdf(tx: DbOrTx, values: typeof invoicePdfs.$inferInsert): Promise<void> {
  await tx.insert(invoicePdfs).values(values);
}

export async function findPdf(db: DbOrTx, invoiceId: string) {
  const [row] = await db.select().from(invoicePdfs).where(eq(invoicePdfs.invoiceId, invoiceId));
  return row;
}

export async function pdfHashes(db: DbOrTx, invoiceIds: string[]): Promise<Map<string, string>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .select({ id: invoicePdfs.invoiceId, sha256: invoicePdfs.sha256 })
    .from(invoicePdfs)
    .where(inArray(invoicePdfs.invoiceId, invoiceIds));
  return new Map(rows.map((r) => [r.id, r.sha256]));
}

// ---- price lists and billing details ----

export async function findPriceList(db: DbOrTx, clientId: string): Promise<PriceListRow | undefined> {
  const [row] = await db.select().from(billingPriceLists).where(eq(billingPriceLists.clientId, clientId));
  return row;
}

export async function upsertPriceList(
  tx: DbOrTx,
  values: typeof billingPriceLists.$inferInsert,
): Promise<PriceListRow> {
  const { clientId: _c, createdAt: _a, ...set } = values;
  const [row] = await tx
    .insert(billingPriceLists)
    .values(values)
    .onConflictDoUpdate({ target: billingPriceLists.clientId, set })
    .returning();
  return row!;
}

export async function findBillingDetails(
  db: DbOrTx,
  clientId: string,
): Promise<BillingDetailsRow | undefined> {
  const [row] = await db.select().from(billingDetails).where(eq(billingDetails.clientId, clientId));
  return row;
}

export async function upsertBillingDetails(
  tx: DbOrTx,
  values: typeof billingDetails.$inferInsert,
): Promise<BillingDetailsRow> {
  const { clientId: _c, ...set } = values;
  const [row] = await tx
    .insert(billingDetails)
    .values(values)
    .onConflictDoUpdate({ target: billingDetails.clientId, set })
    .returning();
  return row!;
}

// ---- due work ----

/** Open invoices whose due date is over (before `today`), row-locked with SKIP LOCKED. */
