/** One opco (GET /opcos/{id}): status with its reason, network id, company facts, its projects; submit a draft. */
import { Link, useParams } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, useAction, useLoad, when } from '../ui/kit';

interface Opco {
  opco_id: string;
  name: string;
  status: string;
  status_reason: string | null;
  sub_tpp_id: string | null;
  opco_type: string;
  domain: string;
  country_code: string;
  legal_entity_name: string | null;
  registration_number: string;
  settlement_iban: string;
  mcc: string;
  submitted_at: string | null;
  activated_at: string | null;
  created_at: string;
}
interface Project {
  project_id: string;
  project_name: string;
  opco_id: string | null;
  archived_at: string | null;
}

export function OpcoDetailPage() {
  const { id = '' } = useParams();
  const { api, can } = useSession();
  const opco = useLoad(() => api.get<Opco>(`/opcos/${id}`), [api, id], 10000);
  const projects = useLoad(
    () =>
      api.get<{ projects: Project[] }>('/projects', { query: { page_size: 200, include_archived: true } }),
    [api],
  );
  const act = useAction();
  const o = opco.data;
  const mine = projects.data?.projects.filter((p) => p.opco_id === id) ?? [];
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
              <Badge value={o.status} /> {o.status_reason ?? ''}
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
          {can('opcos.write') && o.status === 'draft' ? (
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
        </>
      ) : null}
    </Page>
  );
}
