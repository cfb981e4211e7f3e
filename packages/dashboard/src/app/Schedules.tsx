/** Payment schedules (instalments as payment links): list with the API's filters in the URL, detail. */
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { shortId } from '../ui/format';
import { Badge, ErrorBox, money, Page, Select, useLoad, when } from '../ui/kit';
import { LinkTable, ScrollRegion, useUrlFilters } from '../ui/list';
import { Pager, type Pagination } from './payments-shared';
import { BusinessCustomerPicker, PayerPicker, ProjectPicker } from './pickers';
import { InstalmentActions, ScheduleActions } from './ScheduleActions';

const STATUSES = ['active', 'past_due', 'completed', 'canceled'];

interface Schedule {
  schedule_id: string;
  status: string;
  currency: string;
  total_amount: string;
  amount_paid: string;
  description: string | null;
  delivery: string;
  created_at: string;
  instalments: {
    instalment_id: string;
    sequence: number;
    amount: string;
    due_date: string;
    issue_at: string | null;
    status: string;
    transaction_id: string | null;
    checkout_url: string | null;
    issue_error: string | null;
    paid_at: string | null;
  }[];
}

const FILTERS = ['status', 'project_id', 'user_id', 'business_customer_id', 'page', 'page_size'] as const;

/** The project and customer filters the recurring and schedule lists share. */
/** Project, payer and business customer filters, each picked by name (pickers.tsx). */
export function CustomerFilters({ f }: { f: ReturnType<typeof useUrlFilters> }) {
  return (
    <>
      <ProjectPicker
        label="Project"
        value={f.value('project_id')}
        onChange={(v) => f.setFilter('project_id', v)}
      />
      <PayerPicker
        label="Payer"
        name="user_id"
        value={f.value('user_id')}
        onChange={(v) => f.setFilter('user_id', v)}
      />
      <BusinessCustomerPicker
        label="Business customer"
        value={f.value('business_customer_id')}
        onChange={(v) => f.setFilter('business_customer_id', v)}
      />
    </>
  );
}

export function SchedulesPage() {
  const { api, can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () =>
      api.get<{ payment_schedules: Schedule[]; pagination: Pagination }>('/payment-schedules', {
        query: f.query,
      }),
    [api, f.key],
  );
  return (
    <Page
      title="Payment schedules"
      actions={
        can('schedules.write') ? (
          <Link className="button" to="/schedules/new">
            Create payment schedule
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
            rows={list.data.payment_schedules}
            rowKey={(s) => s.schedule_id}
            href={(s) => `/schedules/${s.schedule_id}`}
            empty="No payment schedules."
            columns={[
              { label: 'Schedule', cell: (s) => s.description || shortId(s.schedule_id) },
              { label: 'Total', cell: (s) => money(s.total_amount, s.currency) },
              { label: 'Paid', cell: (s) => money(s.amount_paid, s.currency) },
              { label: 'Status', cell: (s) => <Badge value={s.status} /> },
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

export function ScheduleDetailPage() {
  const { id = '' } = useParams();
  const { api, can, me } = useSession();
  const acts = can('schedules.write') || (me?.environment === 'sandbox' && can('sandbox.simulate'));
  const data = useLoad(() => api.get<Schedule>(`/payment-schedules/${id}`), [api, id]);
  const s = data.data;
  return (
    <Page title="Payment schedule">
      <p>
        <Link to="/schedules">Back to payment schedules</Link>
      </p>
      <ErrorBox error={data.error} />
      {s ? (
        <>
          <dl className="facts">
            <dt>Description</dt>
            <dd>{s.description ?? '—'}</dd>
            <dt>Status</dt>
            <dd>
              <Badge value={s.status} />
            </dd>
            <dt>Total</dt>
            <dd>{money(s.total_amount, s.currency)}</dd>
            <dt>Paid</dt>
            <dd>{money(s.amount_paid, s.currency)}</dd>
            <dt>Delivery</dt>
            <dd>{s.delivery}</dd>
            <dt>Created</dt>
            <dd>{when(s.created_at)}</dd>
          </dl>
          <h2>Instalments</h2>
          <ScrollRegion label="Instalments">
            <table>
              <thead>
                <tr>
                  <th scope="col">Instalment</th>
                  <th scope="col">Due</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Status</th>
                  <th scope="col">Payment</th>
                  {acts ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {s.instalments.map((i) => (
                  <tr key={i.instalment_id}>
                    <td>#{i.sequence}</td>
                    <td>{i.due_date}</td>
                    <td>{money(i.amount, s.currency)}</td>
                    <td>
                      <Badge value={i.status} />
                      {i.issue_error ? ` ${i.issue_error}` : ''}
                    </td>
                    <td>
                      {i.transaction_id ? (
                        <Link to={`/payments/${i.transaction_id}`}>View payment</Link>
                      ) : i.status === 'scheduled' && i.issue_at ? (
                        `link issued ${when(i.issue_at)}`
                      ) : (
                        '—'
                      )}
                    </td>
                    {acts ? (
                      <td>
                        <InstalmentActions s={s} i={i} done={data.reload} />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
          <ScheduleActions s={s} done={data.reload} />
        </>
      ) : data.error ? null : (
        <p role="status">Loading…</p>
      )}
    </Page>
  );
}
