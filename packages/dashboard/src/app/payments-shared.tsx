/** Transaction types and the table used by the overview and the payments list. */
import { Link } from 'react-router';
import type { ApiData } from '../query';
import { paymentLabel } from '../ui/format';
import { Badge, money, when } from '../ui/kit';

export const TRANSACTION_STATUSES = [
  'pending',
  'processing',
  'success',
  'failed',
  'expired',
  'canceled',
] as const satisfies readonly TransactionRow['status'][];

/** GET /transactions (the SDK's type). */
export type TransactionPage = ApiData<'get', '/transactions'>;
/** One payment as GET /transactions/{transaction_id} answers it. */
export type Transaction = ApiData<'get', '/transactions/{transaction_id}'>;
export type TransactionRow = TransactionPage['transactions'][number];
/** The page-based pagination every list of the API answers with. */
export type Pagination = TransactionPage['pagination'];

export function TransactionTable({ rows }: { rows: TransactionRow[] }) {
  if (rows.length === 0)
    return (
      <p className="empty">
        No payments yet. Create a payment link and send it to the payer: they pay from their bank account on
        our checkout. <a href="/docs/guides/payments">Payments guide</a>
      </p>
    );
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Payment</th>
            <th scope="col">Amount</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.transaction_id}>
              <td>
                <Link to={`/payments/${t.transaction_id}`}>{paymentLabel(t)}</Link>
              </td>
              <td>{money(t.amount, t.currency)}</td>
              <td>
                <Badge value={t.status} />
              </td>
              <td>{when(t.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Page-based pager; the page lives in the URL like every filter. */
export function Pager({ p, go }: { p: Pagination; go(page: number): void }) {
  if (p.total_pages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={p.page <= 1} onClick={() => go(p.page - 1)}>
        Previous
      </button>
      <span>
        Page {p.page} of {p.total_pages} ({p.total})
      </span>
      <button type="button" disabled={p.page >= p.total_pages} onClick={() => go(p.page + 1)}>
        Next
      </button>
    </nav>
  );
}
