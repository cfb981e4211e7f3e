/**
 * One opco (GET /opcos/{id}): status with its reason and, once submitted, the time left until the
 * sandbox activates it; network id, company facts, its projects; edit, submit or delete a draft.
 */
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type ApiData, allows, useApiMutation, useApiQuery } from '../query';
import { Badge, ErrorBox, Page, when } from '../ui/kit';
import { QueryView } from '../ui/states';

type Opco = ApiData<'get', '/opcos/{opco_id}'>;

/** When the sandbox is due to activate a submitted opco (null when nothing is due). */
export function activationDue(o: Pick<Opco, 'activation_due_at'>): string | null {
  return o.activation_due_at ?? null;
}

/** "in 8 s", "in 2 min 5 s", or "any moment now" once the time has passed. */
export function countdown(dueIso: string, now: number): string {
  const s = Math.ceil((Date.parse(dueIso) - now) / 1000);
  if (s <= 0) return 'any moment now';
  const m = Math.floor(s / 60);
  return m > 0 ? `in ${m} min ${s % 60} s` : `in ${s} s`;
}

/** The current time, ticking every second while `on`. */
export function useNow(on: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!on) return;
    const t = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(t);
  }, [on]);
  return now;
}

export function OpcoDetailPage() {
  const { id = '' } = useParams();
  const q = useApiQuery('/opcos/{opco_id}', { path: { opco_id: id }, poll: 3000 });
  return (
    <Page title={q.data ? `Opco ${q.data.name}` : 'Opco'}>
      <p>
        <Link to="/opcos">Back to opcos and projects</Link>
      </p>
      <QueryView q={q} what="the opco" lines={6}>
        {(o) => <OpcoFacts o={o} />}
      </QueryView>
    </Page>
  );
}

function OpcoFacts({ o }: { o: Opco }) {
  const navigate = useNavigate();
  const id = o.opco_id;
  const projects = useApiQuery('/projects', { query: { page_size: 200, include_archived: true } });
  const submit = useApiMutation('post', '/opcos/{opco_id}/submit', { invalidate: ['/opcos'] });
  const remove = useApiMutation('delete', '/opcos/{opco_id}', { invalidate: ['/opcos'] });
  const waiting = o.status === 'awaiting_approval' || o.status === 'pending_superadmin_review';
  const due = activationDue(o);
  const now = useNow(Boolean(waiting && due));
  const mine = projects.data?.projects.filter((p) => p.opco_id === id) ?? [];
  const busy = submit.isPending || remove.isPending;
  return (
    <>
      <ErrorBox error={submit.error ?? remove.error} />
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span data-testid="opco-status">
            <Badge value={o.status} />
          </span>{' '}
          {o.status_reason ?? ''}
          {waiting ? (
            <span role="status" className="hint">
              {' '}
              {due ? `Activation ${countdown(due, now)}.` : 'Waiting for approval by the payment network.'}
            </span>
          ) : null}
        </dd>
        <dt>Sub-TPP ID</dt>
        <dd>{o.sub_tpp_id ? <code>{o.sub_tpp_id}</code> : '— (until activation)'}</dd>
        <dt>Type</dt>
        <dd>{o.opco_type === 'licensed_tpp_sole_trader' ? 'Sole trader' : 'Private company'}</dd>
        <dt>Legal entity</dt>
        <dd>{o.legal_entity_name ?? o.name}</dd>
        <dt>Registration</dt>
        <dd>
          {o.registration_number} ({o.country_code})
        </dd>
        <dt>Domain</dt>
        <dd>{o.domain}</dd>
        <dt>Primary use case</dt>
        <dd>{o.primary_use_case}</dd>
        <dt>Settlement IBAN</dt>
        <dd>
          <code>{o.settlement_iban}</code>
          {o.settlement_bic ? (
            <>
              {' '}
              (BIC <code>{o.settlement_bic}</code>)
            </>
          ) : null}
        </dd>
        <dt>MCC</dt>
        <dd>
          {o.mcc}
          {o.mcc_subtype ? ` / ${o.mcc_subtype}` : ''}
        </dd>
        {o.sole_trader ? (
          <>
            <dt>Sole trader</dt>
            <dd>
              {o.sole_trader.fullName}, born {o.sole_trader.dateOfBirth}
            </dd>
          </>
        ) : (
          <>
            <dt>UBOs</dt>
            <dd>{o.ubos?.map((p) => p.fullName).join(', ') || '—'}</dd>
            <dt>Directors</dt>
            <dd>{o.directors?.map((p) => p.fullName).join(', ') || '—'}</dd>
            <dt>Signatories</dt>
            <dd>{o.signatories?.map((p) => p.fullName).join(', ') || '—'}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{when(o.created_at)}</dd>
        <dt>Submitted</dt>
        <dd>{when(o.submitted_at)}</dd>
        <dt>Activated</dt>
        <dd>{when(o.activated_at)}</dd>
      </dl>
      {allows(o, 'submit') || allows(o, 'edit') || allows(o, 'delete') ? (
        <div className="actions">
          {allows(o, 'submit') ? (
            <button
              type="button"
              disabled={busy}
              onClick={() => submit.mutate({ path: { opco_id: id }, body: undefined })}
            >
              Submit for approval
            </button>
          ) : null}
          {allows(o, 'edit') ? (
            <Link className="button secondary" to={`/opcos/${id}/edit`}>
              Edit draft
            </Link>
          ) : null}
          {allows(o, 'delete') ? (
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => {
                if (!window.confirm(`Delete the draft opco ${o.name}?`)) return;
                remove.mutate(
                  { path: { opco_id: id }, body: undefined },
                  { onSuccess: () => navigate('/opcos') },
                );
              }}
            >
              Delete draft
            </button>
          ) : null}
        </div>
      ) : null}
      <h2>Projects</h2>
      {mine.length === 0 ? (
        <p className="empty">No project uses this opco.</p>
      ) : (
        <ul className="plain">
          {mine.map((p) => (
            <li key={p.project_id}>
              {p.project_name} {p.archived_at ? <Badge value="archived" /> : null}
            </li>
          ))}
        </ul>
      )}
      {allows(o, 'add_project') ? (
        <Link className="button secondary" to={`/projects/new?opco_id=${id}`}>
          New project for this opco
        </Link>
      ) : null}
    </>
  );
}
