/**
 * The dashboard's data layer: TanStack Query over the SDK's typed paths.
 *
 * Pattern (every page follows it):
 *
 *   const list = useApiQuery('/transactions', { query: { status }, poll: 5000 });
 *   const cancel = useApiMutation('post', '/checkout/intent/{transaction_id}/cancel', {
 *     invalidate: ['/transactions'],
 *   });
 *   cancel.mutate({ path: { transaction_id: id }, idempotencyKey: newIdempotencyKey() });
 *   return <QueryView q={list} what="the payments">{(data) => <Table rows={data.transactions} />}</QueryView>;
 *
 * - Paths are the API's own (`/api/v1` left out), checked against the generated `paths` of
 *   `@svc/sdk`; the data, path parameters, query and body are typed from that operation, so a
 *   renamed field or route is a compile error here instead of a blank cell in the browser. Never
 *   re-declare a response interface in a page: name it with `ApiData<'get', '/path'>`.
 * - The query key is `[path template, path params, query]`: two pages asking for the same thing
 *   share one request and one cache entry.
 * - After a mutation, `invalidate` lists path templates (prefixes): every cached query under them is
 *   marked stale and the ones on screen refetch. No page wires its own reload.
 * - `poll` refetches every n ms while the tab is visible (`refetchIntervalInBackground: false`);
 *   returning to the tab (focus) refetches stale data.
 * - Errors are `SvcApiError` (the SDK's): `detailOf(err)` is the API's message; `QueryError`
 *   (ui/states.tsx) phrases it for people and keeps the detail one click away.
 */
import type { paths } from '@svc/sdk';
import {
  QueryClient,
  type UseMutationResult,
  type UseQueryResult,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { useCallback } from 'react';
import { type RequestOptions, SvcApiError } from './api';
import { allows, cleanQuery, fillPath, queryKeyOf, underAny } from './query-keys';
import { useSession } from './session';

export { allows, fillPath, queryKeyOf, underAny };

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Full = keyof paths;
type Strip<P> = P extends `/api/v1${infer R}` ? R : never;
type Has<P extends Full, M extends Method> = [NonNullable<paths[P][M]>] extends [never] ? false : true;

/** The API paths (without `/api/v1`) that have operation `M`. */
export type ApiPath<M extends Method = 'get'> = {
  [P in Full]: Has<P, M> extends true ? Strip<P> : never;
}[Full];

type Op<M extends Method, P extends ApiPath<M>> = NonNullable<paths[`/api/v1${P}` & Full][M]>;
type Params<O> = O extends { parameters: infer X } ? X : never;
type Success<R> = R[Extract<keyof R, 200 | 201 | 202 | 204>];
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;

/** The JSON a successful call answers, e.g. `ApiData<'get', '/transactions'>`. */
export type ApiData<M extends Method, P extends ApiPath<M>> = JsonOf<
  Success<Op<M, P> extends { responses: infer R } ? R : never>
>;
type ReqBody<M extends Method, P extends ApiPath<M>> = Op<M, P> extends { requestBody?: infer R } ? R : never;
/** The JSON body an operation takes (never when it takes none). */
export type ApiBody<M extends Method, P extends ApiPath<M>> =
  NonNullable<ReqBody<M, P>> extends {
    content: { 'application/json': infer B };
  }
    ? B
    : never;
type BodyArg<M extends Method, P extends ApiPath<M>> = [ApiBody<M, P>] extends [never]
  ? { body?: undefined }
  : undefined extends ReqBody<M, P>
    ? { body?: ApiBody<M, P> }
    : { body: ApiBody<M, P> };
export type ApiPathParams<M extends Method, P extends ApiPath<M>> = NonNullable<Params<Op<M, P>>['path']>;
type Query<M extends Method, P extends ApiPath<M>> = NonNullable<Params<Op<M, P>>['query']>;
/**
 * The query string: the operation's own keys; values may also come straight from the URL (strings)
 * or be empty (left out).
 */
export type ApiQuery<M extends Method, P extends ApiPath<M>> = [Query<M, P>] extends [never]
  ? never
  : { [K in keyof Query<M, P>]?: Query<M, P>[K] | string | null };

/** `{path}` is required when the route has parameters; `query` only where the operation takes one. */
type Target<M extends Method, P extends ApiPath<M>> = ([ApiPathParams<M, P>] extends [never]
  ? { path?: undefined }
  : { path: ApiPathParams<M, P> }) &
  ([ApiQuery<M, P>] extends [never] ? { query?: undefined } : { query?: ApiQuery<M, P> });

const isClientError = (e: unknown) => e instanceof SvcApiError && e.status < 500;

/** One client per tab; `main.tsx` provides it and a sign-out clears it (no data survives the session). */
export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not change on a retry; the SDK already retries network errors.
        retry: (n, e) => n < 1 && !isClientError(e),
        refetchOnWindowFocus: true,
        refetchIntervalInBackground: false,
        // Two components mounting at once share one request.
        staleTime: 1000,
      },
      mutations: { retry: false },
    },
  });
}

export type QueryOptions<P extends ApiPath<'get'>> = Target<'get', P> & {
  /** ms between refetches while the tab is visible; a function of the data stops it (e.g. once terminal). */
  poll?: number | false | ((data: ApiData<'get', P> | undefined) => number | false);
  enabled?: boolean;
  keep?: boolean;
};
// biome-ignore lint/complexity/noBannedTypes: `{}` is exactly "an object with nothing required"
type OptionalUnlessRequired<T> = {} extends T ? [opts?: T] : [opts: T];

type PollFn<P extends ApiPath<'get'>> = (data: ApiData<'get', P> | undefined) => number | false;

export type ApiQueryResult<T> = UseQueryResult<T, Error>;

/**
 * GET `path` (typed by the SDK's paths). `poll` in ms refetches while the tab is visible;
 * `enabled: false` waits (e.g. for an id). `keep` keeps the previous page on screen while the next
 * loads (filters, pagination).
 */
export function useApiQuery<P extends ApiPath<'get'>>(
  path: P,
  ...[opts]: OptionalUnlessRequired<QueryOptions<P>>
): ApiQueryResult<ApiData<'get', P>> {
  const { api } = useSession();
  const o = (opts ?? {}) as {
    path?: Record<string, unknown>;
    query?: Record<string, unknown>;
  } & Partial<QueryOptions<P>>;
  const query = cleanQuery(o.query);
  return useQuery({
    queryKey: queryKeyOf(path, o.path, query),
    queryFn: () =>
      api.get<ApiData<'get', P>>(fillPath(path, o.path), { query: query as RequestOptions['query'] }),
    refetchInterval:
      typeof o.poll === 'function' ? (q) => (o.poll as PollFn<P>)(q.state.data) : o.poll || false,
    enabled: o.enabled ?? true,
    placeholderData: o.keep ? (prev) => prev : undefined,
  });
}

export type MutationVars<M extends Exclude<Method, 'get'>, P extends ApiPath<M>> = Target<M, P> &
  BodyArg<M, P> & {
    idempotencyKey?: string;
    /** Extra headers (the security challenge's proof). */
    headers?: Record<string, string>;
  };

type FirstSegment<P> = P extends `/${infer A}/${string}` ? `/${A}` : P;
/** What an invalidation names: a GET path template, or the first segment of one (`/kyc`: all of KYC). */
export type ApiArea = ApiPath<'get'> | FirstSegment<ApiPath<'get'>>;

/** Marks the queries under these path templates stale; the ones on screen refetch. */
export function useInvalidate() {
  const qc = useQueryClient();
  return (prefixes: readonly ApiArea[]) =>
    qc.invalidateQueries({ predicate: (q) => underAny(q.queryKey, prefixes) });
}

type AnyVars = {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  idempotencyKey?: string;
  headers?: Record<string, string>;
};

/** A typed call without a cache (what a mutation or an action runs). */
export function useApiCall() {
  const { api } = useSession();
  return useCallback(
    <M extends Exclude<Method, 'get'>, P extends ApiPath<M>>(
      method: M,
      path: P,
      ...[vars]: OptionalUnlessRequired<MutationVars<M, P>>
    ): Promise<ApiData<M, P>> => {
      const v = (vars ?? {}) as AnyVars;
      return api.request<ApiData<M, P>>(
        method.toUpperCase() as 'POST' | 'PUT' | 'PATCH' | 'DELETE',
        fillPath(path, v.path),
        {
          query: cleanQuery(v.query),
          ...(v.body === undefined ? {} : { body: v.body }),
          ...(v.idempotencyKey ? { idempotencyKey: v.idempotencyKey } : {}),
          ...(v.headers ? { headers: v.headers } : {}),
        },
      );
    },
    [api],
  );
}

/**
 * An action bar: several buttons sharing one busy state and one error. `send` is a typed call;
 * `run` any async work. Either way, once it succeeds the queries under `invalidate` refetch, and the
 * promise resolves with the result (undefined after an error, which `error` then holds).
 */
export function useApiActions(opts: { invalidate?: readonly ApiArea[] } = {}) {
  const call = useApiCall();
  const invalidate = useInvalidate();
  const m = useMutation({
    mutationFn: (fn: () => Promise<unknown>) => fn(),
    onSuccess: () => (opts.invalidate?.length ? invalidate(opts.invalidate) : undefined),
  });
  const { mutateAsync } = m;
  const run = useCallback(
    <T>(fn: () => Promise<T>): Promise<T | undefined> =>
      mutateAsync(fn).then(
        (r) => r as T,
        () => undefined,
      ),
    [mutateAsync],
  );
  return {
    busy: m.isPending,
    error: m.error as unknown,
    reset: m.reset,
    run,
    /** The typed call alone (inside `run`, or an `ActButton`'s `fn`). */
    call,
    send: <M extends Exclude<Method, 'get'>, P extends ApiPath<M>>(
      method: M,
      path: P,
      ...vars: OptionalUnlessRequired<MutationVars<M, P>>
    ) => run(() => call(method, path, ...vars)),
  };
}
export type ApiActions = ReturnType<typeof useApiActions>;

/**
 * POST/PUT/PATCH/DELETE `path`; on success the queries under `invalidate` refetch (their promise
 * is awaited, so `mutateAsync` resolves once the screen shows the change).
 */
export function useApiMutation<M extends Exclude<Method, 'get'>, P extends ApiPath<M>>(
  method: M,
  path: P,
  opts: { invalidate?: readonly ApiArea[] } = {},
): UseMutationResult<ApiData<M, P>, Error, MutationVars<M, P>> {
  const call = useApiCall();
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (vars: MutationVars<M, P>) =>
      (call as (m: M, p: P, v: MutationVars<M, P>) => Promise<ApiData<M, P>>)(method, path, vars),
    onSuccess: () => (opts.invalidate?.length ? invalidate(opts.invalidate) : undefined),
  });
}
