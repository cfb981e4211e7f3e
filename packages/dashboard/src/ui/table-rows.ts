/**
 * The data table's columns and row order without React (ui/table.tsx renders them): plain functions
 * the unit tests reach.
 */
import type { CSSProperties, ReactNode } from 'react';

export interface Column<T> {
  /** The header text; also the column's key, so it is unique within a table. */
  header: string;
  cell(row: T): ReactNode;
  /**
   * A value to order the rows by: the header becomes a button that sorts by it (ascending, then
   * descending), and the header cell says the order (aria-sort).
   */
  sortBy?(row: T): string | number;
  /** Style of the column's body cells (for example a minimum width for a column holding a form). */
  style?: CSSProperties;
}

/** A column list may hold `false`/`null` for a column shown only sometimes (an Actions column for a role). */
export type Columns<T> = readonly (Column<T> | false | null | undefined)[];

export type Sort = { header: string; dir: 'asc' | 'desc' } | null;

function compare(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

/** The rows in the order `sort` asks for (stable: equal rows keep the API's order). */
export function sortRows<T>(rows: readonly T[], columns: readonly Column<T>[], sort: Sort): readonly T[] {
  const by = sort ? columns.find((c) => c.header === sort.header)?.sortBy : undefined;
  if (!sort || !by) return rows;
  const sign = sort.dir === 'asc' ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: by(row) }))
    .sort((x, y) => sign * compare(x.v, y.v) || x.i - y.i)
    .map((x) => x.row);
}
