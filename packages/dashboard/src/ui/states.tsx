/**
 * What a page shows before its data is there: a skeleton while loading, an error phrased for people
 * (the API's own detail one click away), then the data. `QueryView` puts the three together for a
 * `useApiQuery` result (query.ts).
 */
import type { ReactNode } from 'react';
import { detailOf, SvcApiError } from '../api';

/**
 * Grey placeholder lines in the shape of what is coming; announced once as "Loading <what>…".
 * `lines` is how many rows to draw (a table page: its page size, up to 8).
 */
export function Skeleton({ what, lines = 4 }: { what?: string; lines?: number }) {
  return (
    <div className="skeleton" role="status" aria-busy="true" data-testid="skeleton">
      <span className="visually-hidden">Loading{what ? ` ${what}` : ''}…</span>
      {Array.from({ length: Math.min(Math.max(lines, 1), 8) }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholder lines, never reordered
        <span key={i} className="skeleton-line" aria-hidden="true" />
      ))}
    </div>
  );
}

/** The API's message for an error of any kind (network errors have no `detail`). */
export function technicalDetail(err: unknown): string {
  if (err instanceof SvcApiError) {
    const id = err.requestId ? `\nRequest ID: ${err.requestId}` : '';
    return `${detailOf(err)} (HTTP ${err.status})${id}`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

function sentenceFor(err: unknown, what: string): string {
  if (err instanceof SvcApiError) {
    if (err.status === 404) return `We couldn't find ${what}.`;
    if (err.status === 403) return `Your role does not allow you to see ${what}.`;
    if (err.status >= 500)
      return `We couldn't load ${what}: the service had a problem. Try again in a moment.`;
  } else if (err instanceof TypeError) {
    return `We couldn't load ${what}: the connection failed. Check your network and try again.`;
  }
  return `We couldn't load ${what}.`;
}

/**
 * A load that failed, said for people ("We couldn't load the payments."), with the API's detail and
 * request id under "Details" for support; `retry` adds a "Try again" button.
 */
export function QueryError({ error, what, retry }: { error: unknown; what: string; retry?: () => void }) {
  if (!error) return null;
  return (
    <div role="alert" className="error query-error">
      <p>{sentenceFor(error, what)}</p>
      <details>
        <summary>Details</summary>
        <pre>{technicalDetail(error)}</pre>
      </details>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  refetch(): unknown;
}

/**
 * The three states of a query: skeleton until the first answer, the error (data already shown stays
 * on screen when a later refetch fails), then `children(data)`.
 */
export function QueryView<T>(props: {
  q: QueryLike<T>;
  what: string;
  lines?: number;
  children(data: T): ReactNode;
}) {
  const { q, what } = props;
  if (q.data !== undefined)
    return (
      <>
        {q.error ? <QueryError error={q.error} what={`the latest ${what.replace(/^the /, '')}`} /> : null}
        {props.children(q.data)}
      </>
    );
  if (q.error) return <QueryError error={q.error} what={what} retry={() => q.refetch()} />;
  return <Skeleton what={what} lines={props.lines} />;
}
