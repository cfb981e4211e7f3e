/**
 * The dashboard's one data table: columns (a header and a cell renderer each), an optional row link on
 * the first column, an optional empty sentence, optional sorting by a column, and the scroll wrapper
 * every table sits in (focusable and named when `region` is given, so a keyboard can scroll it at
 * 390 px). `QueryTable` adds the loading and error states of a query (states.tsx) around it.
 */
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import { QueryView } from './states';
import { type Column, type Columns, type Sort, sortRows } from './table-rows';

export type { Column, Columns } from './table-rows';

export interface DataTableProps<T> {
  rows: readonly T[];
  columns: Columns<T>;
  rowKey(row: T): string | number;
  /** Wraps the first column's cell in a link to the row's page. */
  rowLink?(row: T): string;
  /**
   * What an empty list says (a sentence on what the area is for) instead of an empty table; without
   * it an empty list is a table with its headers only.
   */
  empty?: ReactNode;
  /** The guide (its slug under /docs/guides) linked after the empty sentence. */
  guide?: { slug: string; title: string };
  /**
   * Names the scroll wrapper: a focusable region with this label (for tables without links, which
   * a keyboard could not otherwise reach to scroll).
   */
  region?: string;
  /** An accessible name on the table itself. */
  label?: string;
  /** Extra attributes of a body row (a test id). */
  rowProps?(row: T): Record<`data-${string}`, string>;
  /** The column (its header) and direction the rows start sorted by; the API's order otherwise. */
  initialSort?: NonNullable<Sort>;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const [sort, setSort] = useState<Sort>(props.initialSort ?? null);
  const columns = props.columns.filter((c): c is Column<T> => !!c);
  if (props.rows.length === 0 && props.empty !== undefined)
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
  const rows = sortRows(props.rows, columns, sort);
  const table = (
    <table aria-label={props.label}>
      <thead>
        <tr>
          {columns.map((c) => {
            if (!c.sortBy)
              return (
                <th key={c.header} scope="col">
                  {c.header}
                </th>
              );
            const dir = sort?.header === c.header ? sort.dir : null;
            return (
              <th
                key={c.header}
                scope="col"
                aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}
              >
                <button
                  type="button"
                  className="sort"
                  onClick={() => setSort({ header: c.header, dir: dir === 'asc' ? 'desc' : 'asc' })}
                >
                  {c.header}
                  <span aria-hidden="true">{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}</span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={props.rowKey(r)} {...props.rowProps?.(r)}>
            {columns.map((c, i) => (
              <td key={c.header} style={c.style}>
                {i === 0 && props.rowLink ? <Link to={props.rowLink(r)}>{c.cell(r)}</Link> : c.cell(r)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
  return props.region ? (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-wrap" tabIndex={0} aria-label={props.region}>
      {table}
    </section>
  ) : (
    <div className="table-wrap">{table}</div>
  );
}

interface QueryLike<D> {
  data: D | undefined;
  error: unknown;
  isPending: boolean;
  refetch(): unknown;
}

/**
 * A table that is a query's whole content: the skeleton while it loads (as many lines as `lines`),
 * the error said for people with a retry, then the table of `rows(data)` and `after(data)` (a pager).
 */
export function QueryTable<D, T>(
  props: Omit<DataTableProps<T>, 'rows'> & {
    q: QueryLike<D>;
    /** "the payments": what the loading and error sentences name. */
    what: string;
    lines?: number;
    rows(data: D): readonly T[];
    after?(data: D): ReactNode;
  },
) {
  const { q, what, lines, rows, after, ...table } = props;
  return (
    <QueryView q={q} what={what} lines={lines}>
      {(data) => (
        <>
          <DataTable {...table} rows={rows(data)} />
          {after?.(data)}
        </>
      )}
    </QueryView>
  );
}
