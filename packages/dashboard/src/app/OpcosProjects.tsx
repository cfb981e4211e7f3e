/** Opcos (list, create, submit drafts) and projects (create, bind to an opco, archive). */
import { Link } from 'react-router';
import { useSession } from '../session';
import { Badge, ErrorBox, Page, Select, useAction, useLoad, when } from '../ui/kit';
import { Skeleton } from '../ui/states';

interface Opco {
  opco_id: string;
  name: string;
  status: string;
  sub_tpp_id: string | null;
  created_at: string;
}
interface Project {
  project_id: string;
  project_name: string;
  opco_id: string | null;
  is_frozen: boolean;
  archived_at: string | null;
}

export function OpcosProjectsPage() {
  const { api, can } = useSession();
  const opcos = useLoad(
    () => api.get<{ opcos: Opco[] }>('/opcos', { query: { page_size: 200 } }),
    [api],
    10000,
  );
  const projects = useLoad(
    () =>
      api.get<{ projects: Project[] }>('/projects', { query: { page_size: 200, include_archived: true } }),
    [api],
  );
  const act = useAction();
  const opcoWrite = can('opcos.write');
  const projectWrite = can('projects.write');
  const opcoOptions: [string, string][] = [
    ['', 'No opco'],
    ...(opcos.data?.opcos ?? []).map((o) => [o.opco_id, `${o.name} (${o.status})`] as [string, string]),
  ];
  const run = (fn: () => Promise<unknown>) =>
    act.run(async () => {
      await fn();
      opcos.reload();
      projects.reload();
    });

  return (
    <Page
      title="Opcos & projects"
      actions={
        opcoWrite ? (
          <Link className="button" to="/opcos/new">
            New opco
          </Link>
        ) : null
      }
    >
      <ErrorBox error={act.error ?? opcos.error ?? projects.error} />
      <h2>Opcos</h2>
      {opcos.data?.opcos.length === 0 ? (
        <p className="empty">
          No opco yet. An opco is the company payments are taken for; a project takes payments once its opco
          is activated.
        </p>
      ) : null}
      {!opcos.data && !opcos.error ? <Skeleton what="opcos" lines={3} /> : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Sub-TPP ID</th>
              <th scope="col">Created</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {opcos.data?.opcos.map((o) => (
              <tr key={o.opco_id}>
                <td>
                  <Link to={`/opcos/${o.opco_id}`}>{o.name}</Link>
                </td>
                <td>
                  <Badge value={o.status} />
                </td>
                <td>{o.sub_tpp_id ?? '—'}</td>
                <td>{when(o.created_at)}</td>
                <td>
                  {opcoWrite && o.status === 'draft' ? (
                    <button type="button" onClick={() => run(() => api.post(`/opcos/${o.opco_id}/submit`))}>
                      Submit
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Projects</h2>
      {projectWrite ? (
        <p>
          <Link className="button" to="/projects/new">
            New project
          </Link>
        </p>
      ) : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Opco</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {projects.data?.projects.map((p) => (
              <tr key={p.project_id}>
                <td>{p.project_name}</td>
                <td>
                  {projectWrite && !p.archived_at ? (
                    <Select
                      label={`Opco of ${p.project_name}`}
                      name="opco_id"
                      value={p.opco_id ?? ''}
                      options={opcoOptions}
                      onChange={(v) =>
                        run(() => api.patch(`/projects/${p.project_id}`, { opco_id: v || null }))
                      }
                    />
                  ) : (
                    (opcos.data?.opcos.find((o) => o.opco_id === p.opco_id)?.name ?? '—')
                  )}
                </td>
                <td>
                  {p.is_frozen ? <Badge value="frozen" /> : null}
                  {p.archived_at ? <Badge value="archived" /> : <Badge value="active" />}
                </td>
                <td>
                  {projectWrite ? (
                    <button
                      type="button"
                      className="secondary"
                      onClick={() =>
                        run(() =>
                          api.post(`/projects/${p.project_id}/${p.archived_at ? 'unarchive' : 'archive'}`),
                        )
                      }
                    >
                      {p.archived_at ? 'Unarchive' : 'Archive'}
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
