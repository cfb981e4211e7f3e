/** Payment schedules (instalments as payment links): list with the API's filters in the URL, detail. */
import { Link, useParams } from 'react-router';
import { useApiQuery } from '../query';
import { useSession } from '../session';
import { shortId } from '../ui/format';
import { Badge, money, Page, Select, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';
import { BusinessCustomerPicker, PayerPicker, ProjectPicker } from './pickers';
import { InstalmentActions, type Schedule, ScheduleActions } from './ScheduleActions';

const STATUSES = [
  'active',
  'past_due',
  'completed',
  'canceled',
] as const satisfies readonly Schedule['status'][];

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
  const { can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/payment-schedules', { query: f.query, keep: true });
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
      <QueryView q={list} what="the payment schedules">
        {(data) => (
          <>
            <DataTable
              rows={data.payment_schedules}
              rowKey={(s) => s.schedule_id}
              rowLink={(s) => `/schedules/${s.schedule_id}`}
              empty="No payment schedules yet. A schedule issues payment links on set dates, for instalments or recurring invoices."
              guide={{ slug: 'schedules', title: 'Schedules guide' }}
              columns={[
                { header: 'Schedule', cell: (s) => s.description || shortId(s.schedule_id) },
                { header: 'Total', cell: (s) => money(s.total_amount, s.currency) },
                { header: 'Paid', cell: (s) => money(s.amount_paid, s.currency) },
                { header: 'Status', cell: (s) => <Badge value={s.status} /> },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function ScheduleDetailPage() {
  const { id = '' } = useParams();
  const { can, me } = useSession();
  const acts = can('schedules.write') || (me?.environment === 'sandbox' && can('sandbox.simulate'));
  const data = useApiQuery('/payment-schedules/{schedule_id}', { path: { schedule_id: id } });
  return (
    <Page title="Payment schedule">
      <p>
        <Link to="/schedules">Back to payment schedules</Link>
      </p>
      <QueryView q={data} what="the payment schedule" lines={6}>
        {(s) => (
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
            <DataTable
              rows={s.instalments}
              rowKey={(i) => i.instalment_id}
              region="Instalments"
              columns={[
                { header: 'Instalment', cell: (i) => <>#{i.sequence}</> },
                { header: 'Due', cell: (i) => i.due_date },
                { header: 'Amount', cell: (i) => money(i.amount, s.currency) },
                {
                  header: 'Status',
                  cell: (i) => (
                    <>
                      <Badge value={i.status} />
                      {i.issue_error ? ` ${i.issue_error}` : ''}
                    </>
                  ),
                },
                {
                  header: 'Payment',
                  cell: (i) =>
                    i.transaction_id ? (
                      <Link to={`/payments/${i.transaction_id}`}>View payment</Link>
                    ) : i.status === 'scheduled' && i.issue_at ? (
                      `link issued ${when(i.issue_at)}`
                    ) : (
                      '—'
                    ),
                },
                acts && { header: 'Actions', cell: (i) => <InstalmentActions s={s} i={i} /> },
              ]}
            />
            <ScheduleActions s={s} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
