/**
 * Async iteration over the list endpoints, following the API's own pagination: `pagination`
 * {page, page_size, total, total_pages}, the same counters at top level, or limit/offset with a total.
 */
import type { paths } from './generated/schema.js';

type GetOp<P> = P extends keyof paths ? (paths[P] extends { get: infer O } ? O : never) : never;
type OkBody<O> = O extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParamsOf<O> = O extends { parameters: { path?: infer Pp } } ? Pp : never;
type IsPaged<B> = 'pagination' extends keyof B ? true : 'total' extends keyof B ? true : false;

/** The GET paths whose answer is paginated. */
export type ListPath = {
  [P in keyof paths]: GetOp<P> extends never ? never : IsPaged<OkBody<GetOp<P>>> extends true ? P : never;
}[keyof paths];

/** The element type of the list a path answers. */
export type ListItem<P extends ListPath> = {
  [K in keyof OkBody<GetOp<P>>]-?: NonNullable<OkBody<GetOp<P>>[K]> extends readonly (infer I)[] ? I : never;
}[keyof OkBody<GetOp<P>>];

export type PaginateInit<P extends ListPath> = {
  /** Filters and the page size (`page_size` or `limit`); the iterator sets `page`/`offset`. */
  query?: Omit<QueryOf<GetOp<P>>, 'page' | 'offset'> & { page?: number; offset?: number };
} & (PathParamsOf<GetOp<P>> extends undefined | never
  ? { path?: never }
  : { path: NonNullable<PathParamsOf<GetOp<P>>> });

type Body = Record<string, unknown>;
export type GetPage = (path: string, query: Record<string, unknown>, pathParams: unknown) => Promise<Body>;

const itemsOf = (body: Body): unknown[] => {
  for (const v of Object.values(body)) if (Array.isArray(v)) return v;
  return [];
};

/** Yields every item of every page, fetching the next page only when the previous one is used up. */
export async function* paginateWith(
  getPage: GetPage,
  path: string,
  init: { query?: Record<string, unknown>; path?: unknown } = {},
): AsyncGenerator<unknown, void, undefined> {
  const query: Record<string, unknown> = { ...init.query };
  for (;;) {
    const body = await getPage(path, query, init.path);
    const items = itemsOf(body);
    yield* items;
    if (items.length === 0) return;
    const counters = (body.pagination ?? body) as { page?: unknown; total_pages?: unknown; total?: unknown };
    if (typeof counters.page === 'number' && typeof counters.total_pages === 'number') {
      if (counters.page >= counters.total_pages) return;
      query.page = counters.page + 1;
    } else if (typeof counters.total === 'number') {
      const offset = Number(query.offset ?? 0) + items.length;
      if (offset >= counters.total) return;
      query.offset = offset;
    } else return;
  }
}
