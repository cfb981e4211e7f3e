/** List pages: filters and page kept in the URL, and a generic table of links. */
import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Select } from './kit';

/** The URL's values for `keys` (the API's query) and a setter that resets the page on a filter change. */
export function useUrlFilters(keys: readonly string[]) {
  const [params, setParams] = useSearchParams();
  const query = Object.fromEntries(keys.map((k) => [k, params.get(k) ?? undefined]));
  const setFilter = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    if (k !== 'page') next.delete('page');
    setParams(next);
  };
  return { query, key: params.toString(), value: (k: string) => params.get(k) ?? '', setFilter };
}

export interface Column<T> {
  label: string;
  cell(row: T): ReactNode;
}

/** A table whose first column links to the row's detail page. */
export function LinkTable<T>(props: {
  rows: T[];
  columns: Column<T>[];
  href(row: T): string;
  rowKey(row: T): string;
  /** What an empty list says: a sentence on what the area is for. */
  empty: string;
  /** The guide (its slug under /docs/guides) linked after the empty sentence. */
  guide?: { slug: string; title: string };
}) {
  if (props.rows.length === 0)
    return (
      <p className="empty">
        {props.empty}
        {props.guide ? (
          <>
            {' '}
            <a href={`/docs/guides/${props.guide.slug}`}>{props.guide.title}</a>
          </>
        ) : null}
      </p>
    );
  const [first, ...rest] = props.columns;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.label} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={props.rowKey(r)}>
              <td>
                <Link to={props.href(r)}>{first!.cell(r)}</Link>
              </td>
              {rest.map((c) => (
                <td key={c.label}>{c.cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A scrollable table wrapper for tables without links: focusable so a keyboard can scroll it at 390 px. */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-wrap" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}

/** `pick(key, label, options)`: a select bound to one URL filter, "Any" first. */
export function urlPicker(f: ReturnType<typeof useUrlFilters>) {
  return (k: string, label: string, options: readonly string[]) => (
    <Select
      label={label}
      name={k}
      value={f.value(k)}
      onChange={(v) => f.setFilter(k, v)}
      options={['', ...options]}
    />
  );
}
