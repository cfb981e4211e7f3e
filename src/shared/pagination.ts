/**
 * Page-based lists (`page` from 1, `page_size` with a per-endpoint default and maximum) and
 * limit/offset lists. Bounds live in the TypeBox query schema, so a page_size above the
 * maximum is a 422 from validation, never silently capped.
 */
import { type TSchema, Type } from 'typebox';

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
