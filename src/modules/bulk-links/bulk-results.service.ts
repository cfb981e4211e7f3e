/**
 * GET …/results.csv and …/template.csv. Results repeat the input columns, then status,
 * transaction_id, checkout_url and errors; every cell a spreadsheet could run as a formula (leading
 * =, +, -, @, tab or carriage return) is prefixed with a single quote.
 */
import { stringify } from 'csv-stringify/sync';
import type { Deps } from '../../deps';
import { notFound, ValidationError } from '../../shared/errors';
import { checkoutUrlOfToken } from '../payments/payments.service';
import { ROW_STATUSES, type RowStatus, rowMachine } from './bulk.machine';
import { BulkLinkMessages } from './bulk.messages';
import { findJob, listRows } from './bulk.repo';
import { BASE_COLUMNS } from './bulk-columns.schemas';

const FORMULA_START = /^[=+\-@\t\r]/;

/** Defuses spreadsheet formula injection in one cell. */
export function safeCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s =
    typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return FORMULA_START.test(s) ? `'${s}` : s;
}

export function templateCsv(): string {
  return stringify([[...BASE_COLUMNS]]);
}

/** `failed,invalid` -> the statuses, or 422 at ["query","status"]. */
export function parseStatusList(raw: string | undefined): RowStatus[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const statuses = parts.filter(rowMachine.isStatus);
  if (statuses.length < parts.length)
    throw new ValidationError([
      {
        loc: ['query', 'status'],
        msg: `Input should be a comma-separated list of ${ROW_STATUSES.map((s) => `'${s}'`).join(', ')}`,
        type: 'enum',
      },
    ]);
  return statuses;
}

function errorText(errors: { field: string | null; value: unknown; msg: string }[]): string {
  return errors
    .map((e) => (e.field ? `${e.field} (${JSON.stringify(e.value ?? null)}): ${e.msg}` : e.msg))
    .join('; ');
}

export async function resultsCsv(
  deps: Pick<Deps, 'db' | 'config'>,
  clientId: string,
  bulkId: string,
  statuses: RowStatus[] | undefined,
): Promise<string> {
  const job = await findJob(deps.db, clientId, bulkId);
  if (!job) throw notFound(BulkLinkMessages.jobNotFound);
  const { rows } = await listRows(deps.db, clientId, bulkId, statuses, null);
  const columns = [...job.columns];
  for (const r of rows) for (const k of Object.keys(r.input)) if (!columns.includes(k)) columns.push(k);
  const records: string[][] = [[...columns, 'status', 'transaction_id', 'checkout_url', 'errors']];
  for (const r of rows) {
    records.push([
      ...columns.map((c) => safeCell(r.input[c])),
      r.status,
      r.transactionId ?? '',
      r.checkoutToken ? checkoutUrlOfToken(deps, r.checkoutToken) : '',
      safeCell(errorText(r.errors)),
    ]);
  }
  return stringify(records);
}
