/**
 * Columns of a bulk row (docs/guides/bulk-links.md) and how a row becomes a POST /checkout/paylink
 * body: values of the row first, then the job's `defaults`; `metadata.<key>` columns build metadata.
 */
import type { PaylinkInput } from '../payments/paylink.service';
import { BulkLinkMessages } from './bulk.messages';

export const BASE_COLUMNS = [
  'amount',
  'currency',
  'user_id',
  'business_customer_id',
  'email',
  'project_id',
  'description',
  'expires_in_seconds',
  'reference',
] as const;
export type BaseColumn = (typeof BASE_COLUMNS)[number];

export const METADATA_PREFIX = 'metadata.';
export const MAX_ROWS = 500;

/** Fields of the paylink body that a row or the job's defaults provide. */
const BODY_FIELDS = [
  'amount',
  'currency',
  'project_id',
  'user_id',
  'business_customer_id',
  'description',
  'expires_in_seconds',
] as const;

export interface JobDefaults {
  project_id?: string;
  currency?: string;
  description?: string;
  expires_in_seconds?: number;
}

/** A row as given: flat columns (`metadata.<key>` included). */
export type RowInput = Record<string, unknown>;

/** The canonical column name of a header cell or JSON key, or null when unknown. */
export function columnOf(name: string): string | null {
  const n = name.trim();
  const lower = n.toLowerCase();
  if ((BASE_COLUMNS as readonly string[]).includes(lower)) return lower;
  if (lower.startsWith(METADATA_PREFIX) && n.length > METADATA_PREFIX.length)
    return `${METADATA_PREFIX}${n.slice(METADATA_PREFIX.length).trim()}`;
  return null;
}

export const isKnownColumn = (name: string): boolean => columnOf(name) === name;

/** Maps a file's header: the column of each position (null = ignored) plus warnings. */
export function mapHeader(header: readonly string[]): {
  positions: (string | null)[];
  columns: string[];
  warnings: string[];
} {
  const seen = new Set<string>();
  const warnings: string[] = [];
  const positions = header.map((cell) => {
    const name = cell.trim();
    if (name === '') return null;
    const col = columnOf(name);
    if (!col) {
      warnings.push(BulkLinkMessages.unknownColumn(name));
      return null;
    }
    if (seen.has(col)) {
      warnings.push(BulkLinkMessages.duplicateColumn(name));
      return null;
    }
    seen.add(col);
    return col;
  });
  return { positions, columns: positions.filter((c): c is string => c !== null), warnings };
}

/** JSON rows: known keys kept as given (a `metadata` object is flattened into `metadata.<key>`). */
export function jsonRowInput(raw: Record<string, unknown>, unknown: Set<string>): RowInput {
  const out: RowInput = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (key === 'metadata' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>))
        out[`${METADATA_PREFIX}${k}`] = v;
      continue;
    }
    if (isKnownColumn(key)) out[key] = value;
    else unknown.add(key);
  }
  return out;
}

/** File rows: trimmed text cells; empty cells are missing values; whole seconds become numbers. */
export function fileRowInput(positions: readonly (string | null)[], cells: readonly string[]): RowInput {
  const out: RowInput = {};
  positions.forEach((col, i) => {
    if (!col) return;
    const v = (cells[i] ?? '').trim();
    if (v === '') return;
    out[col] = col === 'expires_in_seconds' && /^\d{1,9}$/.test(v) ? Number(v) : v;
  });
  return out;
}

/** Columns present in a set of rows, base columns first, then metadata keys in first-seen order. */
export function columnsOf(rows: readonly RowInput[]): string[] {
  const meta = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) if (k.startsWith(METADATA_PREFIX)) meta.add(k);
  return [...BASE_COLUMNS, ...meta];
}

/** The POST /checkout/paylink body of a row: row values, then defaults; `payerUserId` fills a missing payer. */
export function paylinkBodyOf(
  input: RowInput,
  defaults: JobDefaults,
  payerUserId: string | null,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of BODY_FIELDS) {
    if (input[f] !== undefined) body[f] = input[f];
    else if (f in defaults && (defaults as Record<string, unknown>)[f] !== undefined)
      body[f] = (defaults as Record<string, unknown>)[f];
  }
  if (payerUserId) {
    body.user_id = payerUserId;
    delete body.business_customer_id;
  }
  const metadata: Record<string, unknown> = {};
  let hasMetadata = false;
  for (const [k, v] of Object.entries(input)) {
    if (!k.startsWith(METADATA_PREFIX)) continue;
    metadata[k.slice(METADATA_PREFIX.length)] = v;
    hasMetadata = true;
  }
  if (hasMetadata) body.metadata = metadata;
  return body;
}

export type ValidPaylinkBody = PaylinkInput;
