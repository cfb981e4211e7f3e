/**
 * Bulk payment links (docs/guides/bulk-links.md): the jobs list, an upload that the API validates first
 * (`preview: true`: every row and its errors, nothing created) and a job page that confirms, follows
 * progress, lists the rows with their errors, retries, cancels, and downloads the results file.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { newIdempotencyKey } from '../api';
import { type ApiBody, type ApiData, allows, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { FileField, fileBase64, saveBlob } from '../ui/files';
import { shortId } from '../ui/format';
import { Badge, ErrorBox, Field, Page, Select, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { FilterSelect } from '../ui/listing';
import { QueryError, QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

type Job = ApiData<'get', '/checkout/paylink/bulk/{bulk_id}'>;
type Row = ApiData<'get', '/checkout/paylink/bulk/{bulk_id}/rows'>['rows'][number];
type RetryBody = ApiBody<'post', '/checkout/paylink/bulk/{bulk_id}/retry'>;

const JOB_STATUSES = [
  'previewed',
  'queued',
  'processing',
  'completed',
  'completed_with_errors',
  'canceled',
  'expired',
] as const satisfies readonly Job['status'][];
const ROW_STATUSES = [
  'valid',
  'invalid',
  'pending',
  'created',
  'failed',
  'canceled',
] as const satisfies readonly Row['status'][];
const WORKING: readonly Job['status'][] = ['queued', 'processing'];

const counts = (j: Job) =>
  `${j.counts.created} created, ${j.counts.failed} failed, ${j.counts.invalid} invalid of ${j.counts.total}`;

export function BulkLinksPage() {
  const { can } = useSession();
  const f = useUrlFilters(['status', 'page', 'page_size']);
  const list = useApiQuery('/checkout/paylink/bulk', { query: f.query, keep: true });
  return (
    <Page
      title="Bulk payment links"
      actions={
        can('payments.write') ? (
          <Link className="button" to="/bulk-links/new">
            Upload a file
          </Link>
        ) : null
      }
    >
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect f={f} name="status" label="Status" options={JOB_STATUSES} />
      </form>
      <QueryView q={list} what="the bulk uploads">
        {(data) => (
          <>
            <DataTable
              rows={data.bulk_jobs}
              rowKey={(j) => j.bulk_id}
              rowLink={(j) => `/bulk-links/${j.bulk_id}`}
              empty="No bulk uploads yet. Upload a CSV or XLSX file to create many payment links at once."
              guide={{ slug: 'bulk-links', title: 'Bulk links guide' }}
              columns={[
                { header: 'File', cell: (j) => j.file_name ?? `${j.source} ${shortId(j.bulk_id)}` },
                { header: 'Status', cell: (j) => <Badge value={j.status} /> },
                { header: 'Rows', cell: counts },
                { header: 'Created', cell: (j) => when(j.created_at) },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function BulkUploadPage() {
  const { api, can } = useSession();
  const navigate = useNavigate();
  const projects = useApiQuery('/projects', { query: { page_size: 200 } });
  const [file, setFile] = useState<File | null>(null);
  const [d, setD] = useState({ project_id: '', currency: 'EUR', description: '' });
  const [createUsers, setCreateUsers] = useState(false);
  const [key, setKey] = useState(newIdempotencyKey);
  const act = useApiActions({ invalidate: ['/checkout/paylink/bulk'] });
  const checkId = useId();
  if (!can('payments.write'))
    return <Page title="Upload payment links">Your role cannot create payment links.</Page>;
  const projectId = d.project_id || projects.data?.projects[0]?.project_id || '';
  const set = (k: keyof typeof d) => (v: string) => setD({ ...d, [k]: v });
  const template = () =>
    act.run(async () => saveBlob(await api.blob('/checkout/paylink/bulk/template.csv'), 'payment-links.csv'));

  return (
    <Page title="Upload payment links">
      <p>
        <Link to="/bulk-links">Back to bulk uploads</Link>
      </p>
      <p>
        One payment link per row of a CSV or XLSX file. The file is checked first: you see every row and its
        errors before anything is created.{' '}
        <button type="button" className="link" onClick={template}>
          Download the CSV template
        </button>
      </p>
      <QueryError error={projects.error} what="your projects" />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          act.run(async () => {
            if (!file) throw new Error('Choose a file');
            const job = await act.call('post', '/checkout/paylink/bulk', {
              body: {
                file: { file_name: file.name, content_base64: await fileBase64(file) },
                defaults: {
                  ...(projectId ? { project_id: projectId } : {}),
                  ...(d.currency.trim() ? { currency: d.currency.trim().toUpperCase() } : {}),
                  ...(d.description.trim() ? { description: d.description.trim() } : {}),
                },
                create_missing_users: createUsers,
                preview: true,
              },
              idempotencyKey: key,
            });
            setKey(newIdempotencyKey());
            navigate(`/bulk-links/${job.bulk_id}`);
          });
        }}
      >
        <FileField
          label="File (CSV or XLSX)"
          accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          hint="Columns: amount, currency, user_id, business_customer_id, email, project_id, description, expires_in_seconds, reference, metadata.<key>"
          onChange={setFile}
        />
        <Select
          label="Default project"
          name="project_id"
          value={projectId}
          onChange={set('project_id')}
          options={(projects.data?.projects ?? []).map((p) => [p.project_id, p.project_name] as const)}
        />
        <Field label="Default currency" name="currency" value={d.currency} onChange={set('currency')} />
        <Field
          label="Default description"
          name="description"
          value={d.description}
          onChange={set('description')}
        />
        <div className="field">
          <input
            id={checkId}
            type="checkbox"
            checked={createUsers}
            onChange={(e) => setCreateUsers(e.target.checked)}
          />
          <label htmlFor={checkId}>Create missing payers from the email column</label>
        </div>
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy}>
          {act.busy ? 'Working…' : 'Check the file'}
        </button>
      </form>
    </Page>
  );
}

export function BulkJobPage() {
  const { id = '' } = useParams();
  const { api } = useSession();
  const f = useUrlFilters(['status', 'page', 'page_size']);
  const base = `/checkout/paylink/bulk/${id}`;
  const path = { bulk_id: id };
  const job = useApiQuery('/checkout/paylink/bulk/{bulk_id}', {
    path,
    poll: (j) => (j && WORKING.includes(j.status) ? 1000 : false),
  });
  const working = !!job.data && WORKING.includes(job.data.status);
  const rows = useApiQuery('/checkout/paylink/bulk/{bulk_id}/rows', {
    path,
    query: f.query,
    poll: working ? 1000 : false,
    keep: true,
  });
  // The rows poll only while the job works: when it turns final, read them once more, or rows
  // fetched just before the last ones got their links would stay as they were.
  const refetchRows = rows.refetch;
  const sawWorking = useRef(false);
  useEffect(() => {
    if (working) sawWorking.current = true;
    else if (sawWorking.current) {
      sawWorking.current = false;
      void refetchRows();
    }
  }, [working, refetchRows]);
  const act = useApiActions({ invalidate: ['/checkout/paylink/bulk'] });
  const j = job.data;
  /** results.csv: every row, or only the rows of the given statuses (comma-separated). */
  const results = (status?: string) =>
    act.run(async () =>
      saveBlob(
        await api.blob(`${base}/results.csv`, { query: { status } }),
        `results-${id}${status ? `-${status.replace(',', '-')}` : ''}.csv`,
      ),
    );

  return (
    <Page title={j?.status === 'previewed' ? 'Check the upload' : 'Bulk upload'}>
      <p>
        <Link to="/bulk-links">Back to bulk uploads</Link>
      </p>
      <QueryView q={job} what="the bulk upload" lines={6}>
        {(j) => (
          <>
            <dl className="facts">
              <dt>Status</dt>
              <dd data-testid="job-status">
                <Badge value={j.status} />
              </dd>
              <dt>File</dt>
              <dd>{j.file_name ?? j.source}</dd>
              <dt>Rows</dt>
              <dd>
                {j.status === 'previewed'
                  ? `${j.counts.valid} valid, ${j.counts.invalid} invalid of ${j.counts.total}`
                  : counts(j)}
              </dd>
              {j.preview_expires_at && j.status === 'previewed' ? (
                <>
                  <dt>Confirm before</dt>
                  <dd>{when(j.preview_expires_at)}</dd>
                </>
              ) : null}
              {j.finished_at ? (
                <>
                  <dt>Finished</dt>
                  <dd>{when(j.finished_at)}</dd>
                </>
              ) : null}
              {j.warnings.length ? (
                <>
                  <dt>Warnings</dt>
                  <dd>{j.warnings.join('; ')}</dd>
                </>
              ) : null}
            </dl>
            <div className="actions">
              {allows(j, 'confirm') ? (
                <button
                  type="button"
                  disabled={act.busy || j.counts.valid === 0}
                  onClick={() => act.send('post', '/checkout/paylink/bulk/{bulk_id}/confirm', { path })}
                >
                  Create {j.counts.valid} payment links
                </button>
              ) : null}
              {allows(j, 'retry') ? (
                <button
                  type="button"
                  disabled={act.busy}
                  onClick={() =>
                    act.send('post', '/checkout/paylink/bulk/{bulk_id}/retry', { path, body: {} })
                  }
                >
                  Retry failed rows
                </button>
              ) : null}
              {allows(j, 'cancel') ? (
                <button
                  type="button"
                  className="danger"
                  disabled={act.busy}
                  onClick={() =>
                    act.send('post', '/checkout/paylink/bulk/{bulk_id}/cancel', { path, body: {} })
                  }
                >
                  Cancel upload
                </button>
              ) : null}
              {j.status !== 'previewed' ? (
                <button type="button" className="secondary" onClick={() => results()}>
                  Download results (CSV)
                </button>
              ) : null}
              {j.status !== 'previewed' && j.counts.failed + j.counts.invalid > 0 ? (
                <button type="button" className="secondary" onClick={() => results('failed,invalid')}>
                  Download failed and invalid rows (CSV)
                </button>
              ) : null}
            </div>
            <ErrorBox error={act.error} />
            <h2>Rows</h2>
            <form className="filters" aria-label="Row filters" onSubmit={(e) => e.preventDefault()}>
              <FilterSelect f={f} name="status" label="Row status" options={ROW_STATUSES} />
            </form>
            <QueryView q={rows} what="the rows">
              {(rows) => (
                <>
                  <RowsTable
                    rows={rows.rows}
                    fix={
                      allows(j, 'retry')
                        ? (body) => act.send('post', '/checkout/paylink/bulk/{bulk_id}/retry', { path, body })
                        : undefined
                    }
                  />
                  <Pager p={rows.pagination} go={(n) => f.setFilter('page', String(n))} />
                </>
              )}
            </QueryView>
          </>
        )}
      </QueryView>
    </Page>
  );
}

const show = (v: unknown) => (v === undefined || v === null || v === '' ? '—' : String(v));

function RowsTable({ rows, fix }: { rows: Row[]; fix?: (body: RetryBody) => void }) {
  if (rows.length === 0) return <p className="empty">No rows.</p>;
  return (
    <DataTable
      rows={rows}
      rowKey={(r) => r.row_number}
      region="Rows"
      columns={[
        { header: 'Row', cell: (r) => <>#{r.row_number}</> },
        { header: 'Reference', cell: (r) => show(r.reference) },
        {
          header: 'Amount',
          cell: (r) => (
            <>
              {show(r.input.amount)} {show(r.input.currency)}
            </>
          ),
        },
        { header: 'Status', cell: (r) => <Badge value={r.status} /> },
        {
          header: 'Errors or link',
          cell: (r) => (
            <>
              {r.errors.map((e) => (
                <div key={`${e.field}-${e.msg}`}>
                  {e.field ? `${e.field}: ` : ''}
                  {e.msg}
                  {e.field && e.value !== undefined && e.value !== null ? ` (${String(e.value)})` : ''}
                </div>
              ))}
              {r.checkout_url ? <a href={r.checkout_url}>Checkout link of row {r.row_number}</a> : null}
              {fix && (r.status === 'invalid' || r.status === 'failed') ? <RowFix row={r} fix={fix} /> : null}
            </>
          ),
          style: { minWidth: '14rem' },
        },
      ]}
    />
  );
}

/** Corrects the columns a row's errors name (rows_patch) and retries it; a failed row is retried as is. */
function RowFix({ row, fix }: { row: Row; fix(body: RetryBody): void }) {
  const fields = [...new Set(row.errors.map((e) => e.field).filter((f): f is string => !!f))];
  const [values, setValues] = useState<Record<string, string>>({});
  const value = (f: string) => values[f] ?? (row.input[f] === undefined ? '' : String(row.input[f]));
  return (
    <form
      className="inline"
      aria-label={`Fix row ${row.row_number}`}
      onSubmit={(e) => {
        e.preventDefault();
        fix(
          fields.length
            ? {
                rows_patch: [
                  { row_number: row.row_number, ...Object.fromEntries(fields.map((f) => [f, value(f)])) },
                ],
              }
            : { row_numbers: [row.row_number] },
        );
      }}
    >
      {fields.map((f) => (
        <Field
          key={f}
          label={`${f} of row ${row.row_number}`}
          name={f}
          value={value(f)}
          onChange={(v) => setValues({ ...values, [f]: v })}
        />
      ))}
      <button type="submit" className="secondary">
        {fields.length ? 'Fix and retry' : 'Retry'} row {row.row_number}
      </button>
    </form>
  );
}
