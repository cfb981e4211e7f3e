/**
 * Contract requests (docs/guides/contracts.md): list with the API's filters in the URL, and a request's
 * participants, documents, audit trail and the actions its status allows (remind, void; in sandbox,
 * the simulator's sign and decline). Sending a new request is ContractSend.tsx.
 */
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { saveBlob } from '../ui/files';
import { Badge, ErrorBox, Field, Page, useAction, useLoad, when } from '../ui/kit';
import { LinkTable, useUrlFilters } from '../ui/list';
import { FilterSelect, Loaded } from '../ui/listing';
import { Pager, type Pagination } from './payments-shared';

export const CONTRACT_STATUSES = [
  'pending',
  'sent',
  'in_progress',
  'completed',
  'declined',
  'expired',
  'voided',
  'failed',
];
/** The request statuses void accepts, and those where a participant can still act (remind). */
const VOIDABLE = ['pending', 'sent', 'in_progress'];
const REMINDABLE = ['sent', 'in_progress'];
/** Participant statuses in which it is their turn (signing link live). */
const TURN = ['sent', 'viewed'];

interface Participant {
  participant_id: string;
  role: string;
  kind: string;
  name: string;
  email: string;
  signing_order: number;
  status: string;
  signing_url: string | null;
  viewed_at: string | null;
  completed_at: string | null;
  declined_at: string | null;
  decline_reason: string | null;
}

export interface ContractRequest {
  contract_request_id: string;
  title: string;
  status: string;
  status_reason: string | null;
  external_reference: string | null;
  expires_at: string;
  created_at: string;
  sent_at: string | null;
  completed_at: string | null;
  declined_at: string | null;
  voided_at: string | null;
  void_reason: string | null;
  participants: Participant[];
  payment: { amount: string; currency: string; checkout_url: string | null; error: string | null } | null;
  documents: { document_id: string; file_name: string; kind: 'original' | 'signed'; size: number }[];
}

interface AuditEvent {
  type: string;
  participant_id: string | null;
  occurred_at: string;
  ip: string | null;
}

const FILTERS = ['q', 'status', 'page', 'page_size'] as const;

export function ContractsPage() {
  const { api, can } = useSession();
  const f = useUrlFilters(FILTERS);
  const list = useLoad(
    () =>
      api.get<{ contract_requests: ContractRequest[]; pagination: Pagination }>('/contracts/requests', {
        query: f.query,
      }),
    [api, f.key],
  );
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
      <Loaded state={list}>
        {(data) => (
          <>
            <LinkTable
              rows={data.contract_requests}
              rowKey={(r) => r.contract_request_id}
              href={(r) => `/contracts/${r.contract_request_id}`}
              empty="No contracts."
              columns={[
                { label: 'Contract', cell: (r) => r.title },
                { label: 'Status', cell: (r) => <Badge value={r.status} /> },
                { label: 'Participants', cell: (r) => r.participants.map((p) => p.name).join(', ') },
                { label: 'Created', cell: (r) => when(r.created_at) },
              ]}
            />
            <Pager p={data.pagination} go={(n) => f.setFilter('page', String(n))} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

export function ContractDetailPage() {
  const { id = '' } = useParams();
  const { api, can, me } = useSession();
  const data = useLoad(async () => {
    const [request, trail] = await Promise.all([
      api.get<ContractRequest>(`/contracts/requests/${id}`),
      api.get<{ events: AuditEvent[] }>(`/contracts/requests/${id}/events`),
    ]);
    return { request, events: trail.events };
  }, [api, id]);
  const act = useAction();
  const [voidReason, setVoidReason] = useState('');
  const [reminded, setReminded] = useState(false);
  const r = data.data?.request;
  const send = can('contracts.send');
  const simulate = me?.environment === 'sandbox' && can('sandbox.simulate');
  const base = `/contracts/requests/${id}`;
  const run = (fn: () => Promise<unknown>) =>
    act.run(async () => {
      await fn();
      data.reload();
    });
  const download = (path: string, name: string) => act.run(async () => saveBlob(await api.blob(path), name));
  const nameOf = (pid: string | null) => r?.participants.find((p) => p.participant_id === pid)?.name;

  return (
    <Page title={r ? r.title : 'Contract'}>
      <p>
        <Link to="/contracts">Back to contracts</Link>
      </p>
      <Loaded state={data}>
        {({ request: r, events }) => (
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
            {send && VOIDABLE.includes(r.status) ? (
              <div className="actions">
                {REMINDABLE.includes(r.status) ? (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() =>
                      run(async () => {
                        await api.post(`${base}/remind`, {});
                        setReminded(true);
                      })
                    }
                  >
                    Send reminder
                  </button>
                ) : null}
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
                  {simulate && TURN.includes(p.status) && VOIDABLE.includes(r.status) ? (
                    <div className="actions">
                      {(['sign', 'decline'] as const).map((action) => (
                        <button
                          key={action}
                          type="button"
                          className="secondary"
                          disabled={act.busy}
                          onClick={() =>
                            run(() =>
                              api.post(`/sandbox${base}/simulate`, {
                                action,
                                participant_id: p.participant_id,
                              }),
                            )
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
            {send && VOIDABLE.includes(r.status) ? (
              <form
                aria-labelledby="void-title"
                onSubmit={(e) => {
                  e.preventDefault();
                  run(async () => {
                    await api.post(`${base}/void`, { reason: voidReason });
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
            {events.length === 0 ? (
              <p className="empty">No events yet.</p>
            ) : (
              <ul className="plain">
                {events.map((e) => (
                  <li key={`${e.occurred_at}-${e.type}-${e.participant_id}`}>
                    <span className="meta">{when(e.occurred_at)}</span> {e.type}
                    {e.participant_id ? ` · ${nameOf(e.participant_id) ?? e.participant_id}` : ''}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}
