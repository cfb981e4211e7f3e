/** Recurring payments (VRP mandates with a schedule): list with the API's filters in the URL, detail with runs. */
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { shortId } from '../ui/format';
import { Badge, ErrorBox, money, Page, Select, useLoad, when } from '../ui/kit';
import { LinkTable, ScrollRegion, useUrlFilters } from '../ui/list';
import { Pager, type Pagination } from './payments-shared';
import { RecurringActions } from './RecurringActions';
import { CustomerFilters } from './Schedules';

const STATUSES = [
  'pending_authorization',
  'active',
  'paused',
  'completed',
  'canceled',
  'revoked',
  'authorization_failed',
  'expired',
];

interface Recurring {
  definition_id: string;
  status: string;
  status_reason: string | null;
  currency: string;
  amount: string | null;
  description: string | null;
  reference: string | null;
  schedule: { interval: string; interval_count: number; start_date: string; end_date?: string | null } | null;
  next_run_at: string | null;
  runs_count: number;
  paused_until: string | null;
  created_at: string;
  authorization_url?: string | null;
  mandate: {
    status: string;
    max_amount_per_payment: string;
    periodic_limit: { amount: string; period: string; alignment: string };
    valid_to: string | null;
    bank_name: string | null;
    authorized_at: string | null;
  };
}

interface Run {
  run_id: string;
  sequence: number;
  kind: string;
  scheduled_for: string | null;
  amount: string;
  currency: string;
  status: string;
  transaction_id: string | null;
  failure_reason: string | null;
  next_retry_at: string | null;
}

const FILTERS = ['status', 'project_id', 'user_id', 'business_customer_id', 'page', 'page_size'] as const;

const amountOf = (r: Recurring) => (r.amount ? money(r.amount, r.currency) : 'On demand');

export function RecurringPage() {
  const { api, can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () =>
      api.get<{ recurring_payments: Recurring[]; pagination: Pagination }>('/recurring-payments', {
        query: f.query,
      }),
    [api, f.key],
  );
  return (
    <Page
      title="Recurring payments"
      actions={
        can('recurring.write') ? (
          <Link className="button" to="/recurring/new">
            Create recurring payment
          </Link>
        ) : null
      }
    >
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Status"
          name="status"
          value={f.value('status')}
          onChange={(v) => f.setFilter('status', v)}
          options={['', ...STATUSES]}
        />
        <CustomerFilters f={f} />
      </form>
      <ErrorBox error={list.error} />
      {list.data ? (
        <>
          <LinkTable
            rows={list.data.recurring_payments}
            rowKey={(r) => r.definition_id}
            href={(r) => `/recurring/${r.definition_id}`}
            empty="No recurring payments."
            columns={[
              { label: 'Recurring payment', cell: (r) => r.description || shortId(r.definition_id) },
              { label: 'Amount', cell: amountOf },
              { label: 'Status', cell: (r) => <Badge value={r.status} /> },
              { label: 'Next run', cell: (r) => when(r.next_run_at) },
            ]}
          />
          <Pager p={list.data.pagination} go={(n) => f.setFilter('page', String(n))} />
        </>
      ) : list.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}

export function RecurringDetailPage() {
  const { id = '' } = useParams();
  const { api } = useSession();
  const data = useLoad(async () => {
    const [r, runs] = await Promise.all([
      api.get<Recurring>(`/recurring-payments/${id}`),
      api.get<{ runs: Run[] }>(`/recurring-payments/${id}/runs`, { query: { page_size: 50 } }),
    ]);
    return { r, runs: runs.runs };
  }, [api, id]);
  const r = data.data?.r;
  return (
    <Page title="Recurring payment">
      <p>
        <Link to="/recurring">Back to recurring payments</Link>
      </p>
      <ErrorBox error={data.error} />
      {r && data.data ? (
        <>
          <dl className="facts">
            <dt>Description</dt>
            <dd>{r.description ?? '—'}</dd>
            <dt>Status</dt>
            <dd>
              <Badge value={r.status} />
              {r.status_reason ? ` ${r.status_reason}` : ''}
            </dd>
            <dt>Amount</dt>
            <dd>{amountOf(r)}</dd>
            <dt>Schedule</dt>
            <dd>
              {r.schedule
                ? `every ${r.schedule.interval_count} ${r.schedule.interval} from ${r.schedule.start_date}`
                : 'On demand only'}
            </dd>
            <dt>Next run</dt>
            <dd>{when(r.next_run_at)}</dd>
            <dt>Mandate</dt>
            <dd>
              <Badge value={r.mandate.status} /> up to {money(r.mandate.max_amount_per_payment, r.currency)} a
              payment, {money(r.mandate.periodic_limit.amount, r.currency)} a{' '}
              {r.mandate.periodic_limit.period}
              {r.mandate.bank_name ? ` · ${r.mandate.bank_name}` : ''}
            </dd>
            {r.authorization_url && r.status === 'pending_authorization' ? (
              <>
                <dt>Authorization link</dt>
                <dd>
                  <a href={r.authorization_url}>{r.authorization_url}</a>
                </dd>
              </>
            ) : null}
          </dl>
          <RecurringActions r={r} runs={data.data.runs} done={data.reload} />
          <h2>Runs</h2>
          {data.data.runs.length === 0 ? (
            <p className="empty">No runs yet.</p>
          ) : (
            <ScrollRegion label="Runs">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Run</th>
                    <th scope="col">Scheduled for</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Payment</th>
                  </tr>
                </thead>
                <tbody>
                  {data.data.runs.map((run) => (
                    <tr key={run.run_id}>
                      <td>
                        #{run.sequence} {run.kind}
                      </td>
                      <td>{when(run.scheduled_for)}</td>
                      <td>{money(run.amount, run.currency)}</td>
                      <td>
                        <Badge value={run.status} />
                        {run.failure_reason ? ` ${run.failure_reason}` : ''}
                        {run.next_retry_at ? ` · retry ${when(run.next_retry_at)}` : ''}
                      </td>
                      <td>
                        {run.transaction_id ? (
                          <Link to={`/payments/${run.transaction_id}`}>View payment</Link>
                        ) : (
                          '—'
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </>
      ) : data.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}
