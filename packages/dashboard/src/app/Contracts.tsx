/**
 * Contract requests (docs/guides/contracts.md): list with the API's filters in the URL, and a request's
 * participants, documents, audit trail and the actions its `allowed_actions` list (remind, void; in
 * sandbox, the simulator's sign and decline). Sending a new request is ContractSend.tsx.
 */
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { type ApiData, allows, useApiActions, useApiQuery } from '../query';
import { useSession } from '../session';
import { saveBlob } from '../ui/files';
import { Badge, ErrorBox, Field, Page, when } from '../ui/kit';
import { useUrlFilters } from '../ui/list';
import { FilterSelect } from '../ui/listing';
import { QueryError, QueryView } from '../ui/states';
import { DataTable } from '../ui/table';
import { Pager } from './payments-shared';

export type ContractRequest = ApiData<'get', '/contracts/requests/{contract_request_id}'>;
type Participant = ContractRequest['participants'][number];

export const CONTRACT_STATUSES = [
  'pending',
  'sent',
  'in_progress',
  'completed',
  'declined',
  'expired',
  'voided',
  'failed',
] as const satisfies readonly ContractRequest['status'][];
/** Participant statuses in which it is their turn (signing link live). */
const TURN: readonly Participant['status'][] = ['sent', 'viewed'];

const FILTERS = ['q', 'status', 'page', 'page_size'] as const;

export function ContractsPage() {
  const { can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useApiQuery('/contracts/requests', { query: f.query, keep: true });
  return (
    <Page
      title="Contracts"
      actions={
        can('contracts.send') ? (
          <Link className="button" to="/contracts/new">
            Send a contract
          </Link>
        ) : null
      }
    >
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field
          label="Search"
          name="q"
          value={f.value('q')}
          hint="Title, reference or participant email"
          onChange={(v) => f.setFilter('q', v)}
        />
        <FilterSelect f={f} name="status" label="Status" options={CONTRACT_STATUSES} />
      </form>
      <QueryView q={list} what="the contracts">
        {(data) => (
          <>
            <DataTable
              rows={data.contract_requests}
              rowKey={(r) => r.contract_request_id}
              rowLink={(r) => `/contracts/${r.contract_request_id}`}
              empty="No contracts yet. A contract request sends a document to be signed by its participants, optionally with a payment at completion."
              guide={{ slug: 'contracts', title: 'Contracts guide' }}
              columns={[
                { header: 'Contract', cell: (r) => r.title },
                { header: 'Status', cell: (r) => <Badge value={r.status} /> },
                { header: 'Participants', cell: (r) => r.participants.map((p) => p.name).join(', ') },
                { header: 'Created', cell: (r) => when(r.created_at) },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </QueryView>
    </Page>
  );
}

export function ContractDetailPage() {
  const { id = '' } = useParams();
  const { api } = useSession();
  const path = { contract_request_id: id };
  const request = useApiQuery('/contracts/requests/{contract_request_id}', { path });
  const trail = useApiQuery('/contracts/requests/{contract_request_id}/events', { path });
  const act = useApiActions({ invalidate: ['/contracts/requests'] });
  const [voidReason, setVoidReason] = useState('');
  const [reminded, setReminded] = useState(false);
  const r = request.data;
  const base = `/contracts/requests/${id}`;
  const download = (path: string, name: string) => act.run(async () => saveBlob(await api.blob(path), name));
  const nameOf = (pid: string | null) => r?.participants.find((p) => p.participant_id === pid)?.name;

  return (
    <Page title={r ? r.title : 'Contract'}>
      <p>
        <Link to="/contracts">Back to contracts</Link>
      </p>
      <QueryView q={request} what="the contract" lines={6}>
        {(r) => (
          <>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <Badge value={r.status} /> {r.status_reason ?? ''}
              </dd>
              <dt>Created</dt>
              <dd>{when(r.created_at)}</dd>
              <dt>Sent</dt>
              <dd>{when(r.sent_at)}</dd>
              <dt>Expires</dt>
              <dd>{when(r.expires_at)}</dd>
              {r.completed_at ? (
                <>
                  <dt>Completed</dt>
                  <dd>{when(r.completed_at)}</dd>
                </>
              ) : null}
              {r.void_reason ? (
                <>
                  <dt>Void reason</dt>
                  <dd>{r.void_reason}</dd>
                </>
              ) : null}
              {r.external_reference ? (
                <>
                  <dt>Reference</dt>
                  <dd>{r.external_reference}</dd>
                </>
              ) : null}
              {r.payment ? (
                <>
                  <dt>Payment</dt>
                  <dd>
                    {r.payment.amount} {r.payment.currency}{' '}
                    {r.payment.checkout_url ? <a href={r.payment.checkout_url}>Checkout link</a> : null}
                    {r.payment.error ?? ''}
                  </dd>
                </>
              ) : null}
            </dl>
            {allows(r, 'remind') ? (
              <div className="actions">
                <button
                  type="button"
                  className="secondary"
                  onClick={() =>
                    act.run(async () => {
                      await act.call('post', '/contracts/requests/{contract_request_id}/remind', {
                        path,
                        body: {},
                      });
                      setReminded(true);
                    })
                  }
                >
                  Send reminder
                </button>
                {reminded ? <p role="status">Reminder sent to the participants whose turn it is.</p> : null}
              </div>
            ) : null}
            <h2>Participants</h2>
            <ul className="plain">
              {r.participants.map((p) => (
                <li key={p.participant_id}>
                  <h3 className="item-title">
                    {p.name} <Badge value={p.status} />
                  </h3>
                  <p className="meta">
                    {p.email} · {p.role} ({p.kind}) · signing order {p.signing_order}
                    {p.completed_at ? ` · completed ${when(p.completed_at)}` : ''}
                    {p.decline_reason ? ` · declined: ${p.decline_reason}` : ''}
                  </p>
                  {p.signing_url && TURN.includes(p.status) ? (
                    <p>
                      <a href={p.signing_url} target="_blank" rel="noreferrer">
                        Signing page of {p.name}
                      </a>
                    </p>
                  ) : null}
                  {allows(r, 'simulate') && TURN.includes(p.status) ? (
                    <div className="actions">
                      {(['sign', 'decline'] as const).map((action) => (
                        <button
                          key={action}
                          type="button"
                          className="secondary"
                          disabled={act.busy}
                          onClick={() =>
                            act.send('post', '/sandbox/contracts/requests/{contract_request_id}/simulate', {
                              path,
                              body: { action, participant_id: p.participant_id },
                            })
                          }
                        >
                          Simulate {action === 'sign' ? 'signing' : 'decline'} by {p.name}
                        </button>
                      ))}
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
            <h2>Documents</h2>
            <ul className="plain">
              {r.documents.map((d) => (
                <li key={d.document_id}>
                  <button
                    type="button"
                    className="secondary"
                    disabled={act.busy}
                    onClick={() => download(`${base}/documents/${d.document_id}`, d.file_name)}
                  >
                    Download {d.kind === 'signed' ? 'signed PDF' : 'PDF'}: {d.file_name}
                  </button>
                </li>
              ))}
              {r.status === 'completed' ? (
                <li>
                  <button
                    type="button"
                    className="secondary"
                    disabled={act.busy}
                    onClick={() => download(`${base}/certificate`, `certificate-${id}.pdf`)}
                  >
                    Download certificate of completion
                  </button>
                </li>
              ) : null}
            </ul>
            <ErrorBox error={act.error} />
            {allows(r, 'void') ? (
              <form
                aria-labelledby="void-title"
                onSubmit={(e) => {
                  e.preventDefault();
                  act.run(async () => {
                    await act.call('post', '/contracts/requests/{contract_request_id}/void', {
                      path,
                      body: { reason: voidReason },
                    });
                    setVoidReason('');
                  });
                }}
              >
                <h2 id="void-title">Void this contract</h2>
                <Field label="Reason" name="reason" value={voidReason} onChange={setVoidReason} required />
                <button type="submit" className="danger" disabled={act.busy}>
                  {act.busy ? 'Working…' : 'Void contract'}
                </button>
              </form>
            ) : null}
            <h2>Timeline</h2>
            <QueryError error={trail.error} what="the contract's timeline" />
            {!trail.data ? null : trail.data.events.length === 0 ? (
              <p className="empty">No events yet.</p>
            ) : (
              <ul className="plain">
                {trail.data.events.map((e) => (
                  <li key={`${e.occurred_at}-${e.type}-${e.participant_id}`}>
                    <span className="meta">{when(e.occurred_at)}</span> {e.type}
                    {e.participant_id ? ` · ${nameOf(e.participant_id) ?? e.participant_id}` : ''}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </QueryView>
    </Page>
  );
}
