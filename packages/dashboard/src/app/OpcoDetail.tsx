/**
 * One opco (GET /opcos/{id}): status with its reason and, once submitted, the time left until the
 * sandbox activates it; network id, company facts, its projects; edit, submit or delete a draft.
 */
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, useAction, useLoad, when } from '../ui/kit';
import { Skeleton } from '../ui/states';
import type { OpcoRecord } from './OpcoForm';

interface Opco extends OpcoRecord {
  status_reason: string | null;
  sub_tpp_id: string | null;
  submitted_at: string | null;
  activated_at: string | null;
  created_at: string;
  /** When the sandbox is due to activate a submitted opco (absent from APIs that do not say). */
  activation_due_at?: string | null;
}
interface Project {
  project_id: string;
  project_name: string;
  opco_id: string | null;
  archived_at: string | null;
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
  const { api, can } = useSession();
  const navigate = useNavigate();
  const opco = useLoad(() => api.get<Opco>(`/opcos/${id}`), [api, id], 3000);
  const projects = useLoad(
    () =>
      api.get<{ projects: Project[] }>('/projects', { query: { page_size: 200, include_archived: true } }),
    [api],
  );
  const act = useAction();
  const o = opco.data;
  const waiting = o?.status === 'awaiting_approval' || o?.status === 'pending_superadmin_review';
  const now = useNow(Boolean(waiting && o?.activation_due_at));
  const mine = projects.data?.projects.filter((p) => p.opco_id === id) ?? [];
  const write = can('opcos.write');
  return (
    <Page title={o ? `Opco ${o.name}` : 'Opco'}>
      <p>
        <Link to="/opcos">Back to opcos and projects</Link>
      </p>
      <ErrorBox error={opco.error ?? act.error} />
      {o ? (
        <>
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
                  {o.activation_due_at
                    ? `Activation ${countdown(o.activation_due_at, now)}.`
                    : 'Waiting for approval by the payment network.'}
                </span>
              ) : null}
            </dd>
            <dt>Sub-TPP ID</dt>
            <dd>{o.sub_tpp_id ? <code>{o.sub_tpp_id}</code> : '— (until activation)'}</dd>
            <dt>Type</dt>
            <dd>{o.opco_type}</dd>
            <dt>Legal entity</dt>
            <dd>{o.legal_entity_name ?? o.name}</dd>
            <dt>Registration</dt>
            <dd>
              {o.registration_number} ({o.country_code})
            </dd>
            <dt>Domain</dt>
            <dd>{o.domain}</dd>
            <dt>Settlement IBAN</dt>
            <dd>
              <code>{o.settlement_iban}</code>
            </dd>
            <dt>MCC</dt>
            <dd>{o.mcc}</dd>
            <dt>Created</dt>
            <dd>{when(o.created_at)}</dd>
            <dt>Submitted</dt>
            <dd>{when(o.submitted_at)}</dd>
            <dt>Activated</dt>
            <dd>{when(o.activated_at)}</dd>
          </dl>
          {write && o.status === 'draft' ? (
            <div className="actions">
              <button
                type="button"
                disabled={act.busy}
                onClick={() =>
                  act.run(async () => {
                    await api.post(`/opcos/${id}/submit`);
                    opco.reload();
                  })
                }
              >
                Submit for approval
              </button>
              <Link className="button secondary" to={`/opcos/${id}/edit`}>
                Edit draft
              </Link>
              <button
                type="button"
                className="danger"
                disabled={act.busy}
                onClick={() => {
                  if (!window.confirm(`Delete the draft opco ${o.name}?`)) return;
                  act.run(async () => {
                    await api.del(`/opcos/${id}`);
                    navigate('/opcos');
                  });
                }}
              >
                Delete draft
              </button>
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
          {can('projects.write') && o.status !== 'rejected' && o.status !== 'deactivated' ? (
            <Link className="button secondary" to={`/projects/new?opco_id=${id}`}>
              New project for this opco
            </Link>
          ) : null}
        </>
      ) : opco.error ? null : (
        <Skeleton what="the opco" lines={6} />
      )}
    </Page>
  );
}
