/**
 * Page-based lists (`page` from 1, `page_size` with a per-endpoint default and maximum) and
 * limit/offset lists. Bounds live in the TypeBox query schema, so a page_size above the
 * maximum is a 422 from validation, never silently capped.
 */
import { type TSchema, Type } from 'typebox';
import { ValidationError } from './errors';

export interface PageParams {
  page: number;
  pageSize: number;
  offset: number;
}

export interface PaginationMeta {
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
}

export function pageQuerySchema(defaultSize: number, maxSize: number) {
  return {
    page: Type.Integer({ minimum: 1, default: 1, description: 'Page number, starting at 1' }),
    page_size: Type.Integer({
      minimum: 1,
      maximum: maxSize,
      default: defaultSize,
      description: `Items per page (default ${defaultSize}, maximum ${maxSize}; above the maximum is 422)`,
    }),
  };
}

export function toPageParams(q: { page?: number; page_size?: number }, defaultSize: number): PageParams {
  const page = q.page ?? 1;
  const pageSize = q.page_size ?? defaultSize;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export function paginationMeta(total: number, p: PageParams): PaginationMeta {
  return {
    total,
    page: p.page,
    page_size: p.pageSize,
    total_pages: total === 0 ? 0 : Math.ceil(total / p.pageSize),
  };
}

export const PaginationSchema = Type.Object({
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer(),
});

/** Response schema `{<key>: T[], pagination}` for page-based lists. */
export function pageEnvelope<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object({ [key]: Type.Array(item), pagination: PaginationSchema } as {
    [P in K]: ReturnType<typeof Type.Array<T>>;
  } & {
    pagination: typeof PaginationSchema;
  });
}

export interface LimitOffset {
  limit: number;
  offset: number;
}

export function limitOffsetQuerySchema(defaultLimit: number, maxLimit: number) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit }),
    offset: Type.Integer({ minimum: 0, default: 0 }),
  };
}

export function toLimitOffset(q: { limit?: number; offset?: number }, defaultLimit: number): LimitOffset {
  return { limit: q.limit ?? defaultLimit, offset: q.offset ?? 0 };
}

/**
 * Counter lists (named-areas.md section 0: monitoring, wallets, travel-rule transfers, activity logs):
 * `{<key>: [...], records, page, page_size, total, total_pages}`, `records` being this page's count.
 */
export function counterPage<K extends string, T>(key: K, rows: T[], total: number, p: PageParams) {
  return {
    [key]: rows,
    records: rows.length,
    page: p.page,
    page_size: p.pageSize,
    total,
    total_pages: total === 0 ? 0 : Math.ceil(total / p.pageSize),
  } as { [P in K]: T[] } & {
    records: number;
    page: number;
    page_size: number;
    total: number;
    total_pages: number;
  };
}

/** Response schema of a counter list. */
export function counterEnvelope<K extends string, T extends TSchema>(key: K, item: T) {
  return Type.Object({
    [key]: Type.Array(item),
    records: Type.Integer({ description: 'Items on this page' }),
    page: Type.Integer(),
    page_size: Type.Integer(),
    total: Type.Integer({ description: 'Items matching the filters' }),
    total_pages: Type.Integer(),
  } as { [P in K]: ReturnType<typeof Type.Array<T>> } & Record<string, ReturnType<typeof Type.Integer>>);
}

/** `q`: a case-insensitive substring, 1-200 characters after trimming (named-areas.md section 0). */
export function searchQuerySchema(fields: string) {
  return Type.String({
    minLength: 1,
    maxLength: 400,
    description: `Case-insensitive substring of ${fields} (1-200 characters after trimming)`,
  });
}

/** The trimmed `q`, or a 422 at ["query","q"] when it is empty or longer than 200 after trimming. */
export function normalizeSearchQuery(q: string | undefined): string | undefined {
  if (q === undefined) return undefined;
  const t = q.trim();
  if (t.length < 1 || t.length > 200)
    throw new ValidationError([
      { loc: ['query', 'q'], msg: 'q must be 1-200 characters after trimming', type: 'value_error' },
    ]);
  return t;
}

/** ILIKE pattern matching `text` anywhere, with LIKE wildcards in it taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * LIKE pattern matching what starts with `text`, lowercased, wildcards taken literally: the indexed
 * picker search (a `lower(column) text_pattern_ops` btree serves `lower(column) like <pattern>`).
 */
export function prefixPattern(text: string): string {
  return `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The OpenAPI description of a prefix `q`. */
export function prefixSearchQuerySchema(fields: string) {
  return Type.String({
    minLength: 1,
    maxLength: 400,
    description: `Case-insensitive prefix of ${fields} (1-200 characters after trimming)`,
  });
}

/** `from` means created_at >= from; `to` means created_at < to (ISO 8601 date-times). */
// RFC 3339 admits year 0000, which PostgreSQL's timestamptz does not (there is no year zero): refuse it with 422.
const NO_YEAR_ZERO = '^(?!0000-)';
export const dateRangeQuerySchema = {
  from: Type.Optional(
    Type.String({ format: 'date-time', pattern: NO_YEAR_ZERO, description: 'created_at >= from' }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', pattern: NO_YEAR_ZERO, description: 'created_at < to' }),
  ),
};
