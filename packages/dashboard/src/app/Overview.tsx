/** The "Get started" checklist until the first payment, recent payments and counts by status (each count is the filtered list's total). */
import { Link } from 'react-router';
import { useApiQuery } from '../query';
import { Page } from '../ui/kit';
import { QueryView } from '../ui/states';
import { GetStarted } from './onboarding';
import { TRANSACTION_STATUSES, TransactionTable } from './payments-shared';

type Status = (typeof TRANSACTION_STATUSES)[number];

function StatusCount({ status }: { status: Status }) {
  const q = useApiQuery('/transactions', { query: { status, page_size: 1 }, poll: 5000 });
  return (
    <li>
      <Link to={`/payments?status=${status}`}>
        <span className="count" data-testid={`count-${status}`}>
          {q.data ? q.data.pagination.total : '–'}
        </span>
        <span>{status}</span>
      </Link>
    </li>
  );
}

export function OverviewPage() {
  const recent = useApiQuery('/transactions', { query: { page_size: 5 }, poll: 5000 });
  return (
    <Page title="Overview">
      <GetStarted />
      <h2>Payments by status</h2>
      <ul className="counts">
        {TRANSACTION_STATUSES.map((status) => (
          <StatusCount key={status} status={status} />
        ))}
      </ul>
      <h2>Recent payments</h2>
      <QueryView q={recent} what="the recent payments" lines={5}>
        {(data) => <TransactionTable rows={data.transactions} />}
      </QueryView>
      <p>
        <Link to="/payments">All payments</Link>
      </p>
    </Page>
  );
}
