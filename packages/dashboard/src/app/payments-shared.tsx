/** Transaction types and the table used by the overview and the payments list. */
import type { ApiData } from '../query';
import { paymentLabel } from '../ui/format';
import { Badge, money, when } from '../ui/kit';
import { DataTable } from '../ui/table';

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
  return (
    <DataTable
      rows={rows}
      rowKey={(t) => t.transaction_id}
      rowLink={(t) => `/payments/${t.transaction_id}`}
      empty="No payments yet. Create a payment link and send it to the payer: they pay from their bank account on our checkout."
      guide={{ slug: 'payments', title: 'Payments guide' }}
      columns={[
        { header: 'Payment', cell: (t) => paymentLabel(t) },
        { header: 'Amount', cell: (t) => money(t.amount, t.currency) },
        { header: 'Status', cell: (t) => <Badge value={t.status} /> },
        { header: 'Created', cell: (t) => when(t.created_at) },
      ]}
    />
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
