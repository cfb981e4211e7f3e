/** Activity log: the API's filters in the URL, and one entry with its changes and request. */
import { Link, useParams } from 'react-router';
import { type ApiData, useApiQuery } from '../query';
import { Badge, Field, Page, Select, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

type ActivityEntry = ApiData<'get', '/activity-logs/{activity_id}'>;

const FILTERS = [
  'q',
  'action',
  'actor_type',
  'actor_account_id',
  'credential_id',
  'target_type',
  'target_id',
  'outcome',
  'from',
  'to',
  'page',
  'page_size',
] as const;

function dayStart(date: string, plusDays = 0): string | undefined {
  const t = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(t) ? undefined : new Date(t + plusDays * 86_400_000).toISOString();
}

const actorOf = (e: ActivityEntry) => e.actor.email ?? e.actor.credential_label ?? e.actor.type;

export function ActivityPage() {
  const f = useUrlFilters(FILTERS);
  // The URL keeps dates; the API takes instants, `to` exclusive (so the whole "to" day is in).
  const query = { ...f.query, from: dayStart(f.value('from')), to: dayStart(f.value('to'), 1) };
  const list = useApiQuery('/activity-logs', { query, keep: true });
  const text = (k: string, label: string, hint?: string) => (
    <Field label={label} name={k} value={f.value(k)} hint={hint} onChange={(v) => f.setFilter(k, v.trim())} />
  );
  return (
    <Page title="Activity log">
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        {text('q', 'Search')}
        {text('action', 'Action', 'A prefix, e.g. team_member.')}
        <Select
          label="Actor type"
          name="actor_type"
          value={f.value('actor_type')}
          onChange={(v) => f.setFilter('actor_type', v)}
          options={['', 'client_user', 'client_api', 'service_internal', 'system']}
        />
        <Select
          label="Outcome"
          name="outcome"
          value={f.value('outcome')}
          onChange={(v) => f.setFilter('outcome', v)}
          options={['', 'success', 'failure']}
        />
        {text('target_type', 'Target type')}
        {text('target_id', 'Target ID')}
        <Field
          label="From"
          name="from"
          type="date"
          value={f.value('from')}
          onChange={(v) => f.setFilter('from', v)}
        />
        <Field
          label="To"
          name="to"
          type="date"
          value={f.value('to')}
          onChange={(v) => f.setFilter('to', v)}
        />
      </form>
      <QueryView q={list} what="the activity log">
        {(data) =>
          data.activity_logs.length === 0 ? (
            <p className="empty">No activity matches.</p>
          ) : (
            <>
              <DataTable
                rows={data.activity_logs}
                rowKey={(e) => e.activity_id}
                columns={[
                  {
                    header: 'Action',
                    cell: (e) => <Link to={`/activity/${e.activity_id}`}>{e.action}</Link>,
                  },
                  { header: 'Target', cell: (e) => e.target?.label ?? e.target?.id ?? '—' },
                  { header: 'Actor', cell: (e) => actorOf(e) },
                  { header: 'Outcome', cell: (e) => <Badge value={e.outcome} /> },
                  { header: 'When', cell: (e) => when(e.occurred_at) },
                ]}
              />
              <Pager p={data} go={(n) => f.setFilter('page', String(n))} />
            </>
          )
        }
      </QueryView>
    </Page>
  );
}

export function ActivityDetailPage() {
  const { id = '' } = useParams();
  const entry = useApiQuery('/activity-logs/{activity_id}', { path: { activity_id: id } });
  return (
    <Page title="Activity entry">
      <p>
        <Link to="/activity">Back to the activity log</Link>
      </p>
      <QueryView q={entry} what="the activity entry" lines={6}>
        {(e) => (
          <>
            <dl className="facts">
              <dt>Action</dt>
              <dd>{e.action}</dd>
              <dt>Outcome</dt>
              <dd>
                <Badge value={e.outcome} />
              </dd>
              <dt>When</dt>
              <dd>{when(e.occurred_at)}</dd>
              <dt>Actor</dt>
              <dd>
                {actorOf(e)} ({e.actor.type})
              </dd>
              <dt>Target</dt>
              <dd>{e.target ? `${e.target.type ?? ''} ${e.target.label ?? e.target.id ?? ''}` : '—'}</dd>
              <dt>Request</dt>
              <dd>
                {e.request?.method ? `${e.request.method} ${e.request.path} from ${e.request.ip}` : '—'}
              </dd>
            </dl>
            <h2>Changes</h2>
            {e.changes && Object.keys(e.changes).length > 0 ? (
              <DataTable
                rows={Object.entries(e.changes)}
                rowKey={([k]) => k}
                region="Changes"
                columns={[
                  { header: 'Field', cell: ([k]) => k },
                  { header: 'From', cell: ([, c]) => JSON.stringify(c.from) },
                  { header: 'To', cell: ([, c]) => JSON.stringify(c.to) },
                ]}
              />
            ) : (
              <p className="empty">No field changes.</p>
            )}
            {e.metadata && Object.keys(e.metadata).length > 0 ? (
              <>
                <h2>Details</h2>
                <pre className="json">{JSON.stringify(e.metadata, null, 2)}</pre>
              </>
            ) : null}
          </>
        )}
      </QueryView>
    </Page>
  );
}
