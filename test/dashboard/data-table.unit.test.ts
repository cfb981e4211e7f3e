/**
 * The dashboard data table's row order (packages/dashboard/src/ui/table-rows.ts): sorting by a
 * column's value either way, stable for equal values, and the API's order without a sort. The table's
 * markup is checked in Chromium by the dashboard browser tests (headers and cells by role and text).
 */
import { describe, expect, it } from 'vitest';
import { type Column, sortRows } from '../../packages/dashboard/src/ui/table-rows';

interface Row {
  id: string;
  name: string;
  amount: string;
}
const rows: Row[] = [
  { id: 'a', name: 'Beta', amount: '10.00' },
  { id: 'b', name: 'alpha', amount: '9.50' },
  { id: 'c', name: 'Gamma', amount: '10.00' },
];

describe('sortRows', () => {
  it('orders by the column’s value either way and keeps equal rows in the API’s order', () => {
    const byAmount: Column<Row>[] = [{ header: 'Amount', cell: (r) => r.amount, sortBy: (r) => r.amount }];
    const ids = (sorted: readonly Row[]) => sorted.map((r) => r.id);
    expect(ids(sortRows(rows, byAmount, { header: 'Amount', dir: 'asc' }))).toEqual(['b', 'a', 'c']);
    expect(ids(sortRows(rows, byAmount, { header: 'Amount', dir: 'desc' }))).toEqual(['a', 'c', 'b']);
    expect(ids(sortRows(rows, byAmount, null))).toEqual(['a', 'b', 'c']);
    expect(ids(sortRows(rows, byAmount, { header: 'Nope', dir: 'asc' }))).toEqual(['a', 'b', 'c']);
  });

  it('compares text without case and numbers inside text by value', () => {
    const byName: Column<Row>[] = [{ header: 'Name', cell: (r) => r.name, sortBy: (r) => r.name }];
    expect(sortRows(rows, byName, { header: 'Name', dir: 'asc' }).map((r) => r.name)).toEqual([
      'alpha',
      'Beta',
      'Gamma',
    ]);
    const runs = [{ n: '#10' }, { n: '#9' }, { n: '#1' }];
    const byRun: Column<{ n: string }>[] = [{ header: 'Run', cell: (r) => r.n, sortBy: (r) => r.n }];
    expect(sortRows(runs, byRun, { header: 'Run', dir: 'asc' }).map((r) => r.n)).toEqual(['#1', '#9', '#10']);
  });
});
