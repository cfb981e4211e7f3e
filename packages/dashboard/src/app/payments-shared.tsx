/** Transaction types and the table used by the overview and the payments list. */
import { Link } from 'react-router';
import { paymentLabel } from '../ui/format';
import { Badge, money, when } from '../ui/kit';

export const TRANSACTION_STATUSES = [
  'pending',
  'processing',
  'success',
  'failed',
  'expired',
  'canceled',
] as const;

export interface Transaction {
  transaction_id: string;
  amount: string;
  currency: string;
  status: string;
  provider_status?: string | null;
  project_id: string;
  user_id: string | null;
  business_customer_id: string | null;
  description?: string | null;
  created_at?: string;
  checkout_url?: string;
  expires_at?: string;
  reconciliation_state?: string;
  status_reason?: string | null;
}

export interface Pagination {
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
}

export interface TransactionPage {
  transactions: Transaction[];
  pagination: Pagination;
}

export function TransactionTable({ rows }: { rows: Transaction[] }) {
  if (rows.length === 0) return <p className="empty">No payments yet.</p>;
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
