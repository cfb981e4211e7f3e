/** Bulk payment-link test helpers: posting jobs, running the worker, building CSV/XLSX files. */
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { events } from '../../src/db/schema/index';
import { runBulkWorker } from '../../src/modules/bulk-links/bulk.worker';
import type { TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';
import { newKey, type PaymentWorld } from '../payments/fixtures';

export interface JobBody {
  bulk_id: string;
  status: string;
  source: string;
  warnings: string[];
  counts: Record<'total' | 'valid' | 'invalid' | 'pending' | 'created' | 'failed' | 'canceled', number>;
  [k: string]: unknown;
}

export interface RowBody {
  row_number: number;
  reference: string | null;
  status: string;
  input: Record<string, unknown>;
  transaction_id: string | null;
  checkout_url: string | null;
  attempts: number;
  errors: { field: string | null; value: unknown; msg: string }[];
}

export function postBulk(
  ctx: TestContext,
  caller: TestCaller,
  body: Record<string, unknown>,
  key: string | null = newKey(),
) {
  return ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink/bulk',
    headers: { ...caller.headers, ...(key === null ? {} : { 'x-idempotency-key': key }) },
    payload: body,
  });
}

export async function createJob(ctx: TestContext, caller: TestCaller, body: Record<string, unknown>) {
  const res = await postBulk(ctx, caller, body);
  if (res.statusCode !== 201 && res.statusCode !== 202)
    throw new Error(`bulk create failed ${res.statusCode}: ${res.body}`);
  return res.json() as JobBody;
}

export function fileBody(fileName: string, content: Buffer | string, extra: Record<string, unknown> = {}) {
  return {
    file: { file_name: fileName, content_base64: Buffer.from(content).toString('base64') },
    ...extra,
  };
}

export async function action(
  ctx: TestContext,
  caller: TestCaller,
  bulkId: string,
  verb: 'confirm' | 'retry' | 'cancel',
  payload?: Record<string, unknown>,
) {
  return ctx.app.inject({
    method: 'POST',
    url: `/api/v1/checkout/paylink/bulk/${bulkId}/${verb}`,
    headers: caller.headers,
    ...(payload ? { payload } : {}),
  });
}

export async function getJob(ctx: TestContext, caller: TestCaller, bulkId: string) {
  const res = await ctx.app.inject({
    url: `/api/v1/checkout/paylink/bulk/${bulkId}`,
    headers: caller.headers,
  });
  if (res.statusCode !== 200) throw new Error(`get job ${res.statusCode}: ${res.body}`);
  return res.json() as JobBody;
}

export async function getRows(ctx: TestContext, caller: TestCaller, bulkId: string, query = 'page_size=200') {
  const res = await ctx.app.inject({
    url: `/api/v1/checkout/paylink/bulk/${bulkId}/rows?${query}`,
    headers: caller.headers,
  });
  if (res.statusCode !== 200) throw new Error(`rows ${res.statusCode}: ${res.body}`);
  return (res.json() as { rows: RowBody[] }).rows;
}

export async function resultsOf(ctx: TestContext, caller: TestCaller, bulkId: string, status?: string) {
  const res = await ctx.app.inject({
    url: `/api/v1/checkout/paylink/bulk/${bulkId}/results.csv${status ? `?status=${status}` : ''}`,
    headers: caller.headers,
  });
  if (res.statusCode !== 200) throw new Error(`results ${res.statusCode}: ${res.body}`);
  return { res, records: parse(res.body, { columns: true }) as Record<string, string>[] };
}

/** Runs the bulk worker until it has nothing left to do. */
export async function drain(ctx: TestContext): Promise<void> {
  for (let i = 0; i < 200; i++) if ((await runBulkWorker(ctx.deps)) === 0) return;
  throw new Error('bulk worker did not settle');
}

export async function bulkEvents(ctx: TestContext, clientId: string) {
  const rows = await ctx.db
    .select()
    .from(events)
    .where(and(eq(events.clientId, clientId), eq(events.type, 'paylink.bulk.status_changed')))
    .orderBy(events.createdAt);
  return rows.map((e) => e.data as Record<string, unknown>);
}

export function rowFor(w: PaymentWorld, extra: Record<string, unknown> = {}) {
  return { amount: '10.00', currency: 'EUR', project_id: w.projectId, user_id: w.userId, ...extra };
}

/** An XLSX workbook (first sheet `rows`, a second sheet that must be ignored) as a Buffer. */
export async function xlsxOf(rows: unknown[][], opts: { secondSheet?: unknown[][] } = {}): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Links');
  for (const r of rows) ws.addRow(r);
  const other = wb.addWorksheet('Other');
  for (const r of opts.secondSheet ?? [['amount'], ['999.00']]) other.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** A large XLSX written with the streaming writer (inline strings), for the size and memory tests. */
export async function bigXlsx(
  rows: number,
  row: (i: number) => unknown[],
  header: string[],
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink, useSharedStrings: false });
  const ws = wb.addWorksheet('Links');
  ws.addRow(header).commit();
  for (let i = 0; i < rows; i++) ws.addRow(row(i)).commit();
  ws.commit();
  await wb.commit();
  return Buffer.concat(chunks);
}
