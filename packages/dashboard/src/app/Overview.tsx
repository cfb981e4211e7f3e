/** The "Get started" checklist until the first payment, recent payments and counts by status (each count is the filtered list's total). */
import { Link } from 'react-router';
import { useSession } from '../session';
import { ErrorBox, Page, useLoad } from '../ui/kit';
import { GetStarted } from './onboarding';
import {
  TRANSACTION_STATUSES,
  type Transaction,
  type TransactionPage,
  TransactionTable,
} from './payments-shared';

export function OverviewPage() {
  const { api } = useSession();
  const recent = useLoad(
    () => api.get<TransactionPage>('/transactions', { query: { page_size: 5 } }),
    [api],
    5000,
  );
  const counts = useLoad(
    () =>
      Promise.all(
        TRANSACTION_STATUSES.map((status) =>
          api
            .get<TransactionPage>('/transactions', { query: { status, page_size: 1 } })
            .then((r) => [status, r.pagination.total] as const),
        ),
      ),
    [api],
    5000,
  );
  return (
    <Page title="Overview">
      <GetStarted />
      <h2>Payments by status</h2>
      <ErrorBox error={counts.error} />
      <ul className="counts">
        {(counts.data ?? []).map(([status, n]) => (
          <li key={status}>
            <Link to={`/payments?status=${status}`}>
              <span className="count" data-testid={`count-${status}`}>
                {n}
              </span>
              <span>{status}</span>
            </Link>
          </li>
        ))}
      </ul>
      <h2>Recent payments</h2>
      <ErrorBox error={recent.error} />
      <TransactionTable rows={recent.data?.transactions ?? ([] as Transaction[])} />
      <p>
        <Link to="/payments">All payments</Link>
      </p>
    </Page>
  );
}
