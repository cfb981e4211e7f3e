/** Recurring payments (VRP mandates with a schedule): list with the API's filters in the URL, detail with runs. */
import { Link, useParams } from 'react-router';
import { type ApiData, useApiQuery } from '../query';
import { useSession } from '../session';
import { shortId } from '../ui/format';
import { Badge, money, Page, Select, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { QueryError, QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';
import { type Recurring, RecurringActions } from './RecurringActions';
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
] as const satisfies readonly Recurring['status'][];

const FILTERS = ['status', 'project_id', 'user_id', 'business_customer_id', 'page', 'page_size'] as const;

type Listed = ApiData<'get', '/recurring-payments'>['recurring_payments'][number];
const amountOf = (r: Pick<Listed, 'amount' | 'currency'>) =>
  r.amount ? money(r.amount, r.currency) : 'On demand';

export function RecurringPage() {
  const { can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/recurring-payments', { query: f.query, keep: true });
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
      <QueryView q={list} what="the recurring payments">
        {(data) => (
          <>
            <DataTable
              rows={data.recurring_payments}
              rowKey={(r) => r.definition_id}
              rowLink={(r) => `/recurring/${r.definition_id}`}
              empty="No recurring payments yet. A recurring payment charges a payer under a mandate they approved once at their bank."
              guide={{ slug: 'recurring', title: 'Recurring payments guide' }}
              columns={[
                { header: 'Recurring payment', cell: (r) => r.description || shortId(r.definition_id) },
                { header: 'Amount', cell: (r) => amountOf(r) },
                { header: 'Status', cell: (r) => <Badge value={r.status} /> },
                { header: 'Next run', cell: (r) => when(r.next_run_at) },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function RecurringDetailPage() {
  const { id = '' } = useParams();
  const path = { definition_id: id };
  const data = useApiQuery('/recurring-payments/{definition_id}', { path });
  const runsQ = useApiQuery('/recurring-payments/{definition_id}/runs', { path, query: { page_size: 50 } });
  const runs = runsQ.data?.runs ?? [];
  return (
    <Page title="Recurring payment">
      <p>
        <Link to="/recurring">Back to recurring payments</Link>
      </p>
      <QueryView q={data} what="the recurring payment" lines={6}>
        {(r) => (
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
                <Badge value={r.mandate.status} /> up to {money(r.mandate.max_amount_per_payment, r.currency)}{' '}
                a payment, {money(r.mandate.periodic_limit.amount, r.currency)} a{' '}
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
            <RecurringActions r={r} runs={runs} />
            <h2>Runs</h2>
            <QueryError error={runsQ.error} what="the runs" />
            {!runsQ.data ? null : runs.length === 0 ? (
              <p className="empty">No runs yet.</p>
            ) : (
              <DataTable
                rows={runs}
                rowKey={(run) => run.run_id}
                region="Runs"
                columns={[
                  {
                    header: 'Run',
                    cell: (run) => (
                      <>
                        #{run.sequence} {run.kind}
                      </>
                    ),
                  },
                  { header: 'Scheduled for', cell: (run) => when(run.scheduled_for) },
                  { header: 'Amount', cell: (run) => money(run.amount, run.currency) },
                  {
                    header: 'Status',
                    cell: (run) => (
                      <>
                        <Badge value={run.status} />
                        {run.failure_reason ? ` ${run.failure_reason}` : ''}
                        {run.next_retry_at ? ` · retry ${when(run.next_retry_at)}` : ''}
                      </>
                    ),
                  },
                  {
                    header: 'Payment',
                    cell: (run) =>
                      run.transaction_id ? (
                        <Link to={`/payments/${run.transaction_id}`}>View payment</Link>
                      ) : (
                        '—'
                      ),
                  },
                ]}
              />
            )}
          </>
        )}
      </QueryView>
    </Page>
  );
}
