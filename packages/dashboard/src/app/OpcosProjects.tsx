/** Opcos (list, create, submit drafts) and projects (create, bind to an opco, archive). */
import { useState } from 'react';
import { Link } from 'react-router';
import { allows, useApiMutation, useApiQuery } from '../query';
import { useSession } from '../session';
import { Badge, CopyId, ErrorBox, Page, Select, when } from '../ui/kit';
import { QueryError, Skeleton } from '../ui/states';
import { DataTable } from '../ui/table';

export function OpcosProjectsPage() {
  const { can } = useSession();
  const opcos = useApiQuery('/opcos', { query: { page_size: 200 }, poll: 10000 });
  const projects = useApiQuery('/projects', { query: { page_size: 200, include_archived: true } });
  const submit = useApiMutation('post', '/opcos/{opco_id}/submit', { invalidate: ['/opcos'] });
  const bind = useApiMutation('patch', '/projects/{project_id}', { invalidate: ['/projects'] });
  const archive = useApiMutation('post', '/projects/{project_id}/archive', { invalidate: ['/projects'] });
  const unarchive = useApiMutation('post', '/projects/{project_id}/unarchive', { invalidate: ['/projects'] });
  const failed = submit.error ?? bind.error ?? archive.error ?? unarchive.error;
  const opcoWrite = can('opcos.write');
  const projectWrite = can('projects.write');
  /** The project whose opco is being changed (one at a time, opened by its Change button). */
  const [changing, setChanging] = useState<string | null>(null);
  const opcoName = (id: string | null) => opcos.data?.opcos.find((o) => o.opco_id === id)?.name ?? 'No opco';
  /** The opcos a project can be put under, plus the one it has. */
  const opcoOptions = (current: string | null): [string, string][] => [
    ['', 'No opco'],
    ...(opcos.data?.opcos ?? [])
      .filter((o) => allows(o, 'add_project') || o.opco_id === current)
      .map((o) => [o.opco_id, `${o.name} (${o.status})`] as [string, string]),
  ];
  return (
    <Page
      title="Opcos & projects"
      actions={
        opcoWrite || projectWrite ? (
          <>
            {opcoWrite ? (
              <Link className="button" to="/opcos/new">
                New opco
              </Link>
            ) : null}
            {projectWrite ? (
              <Link className="button" to="/projects/new">
                New project
              </Link>
            ) : null}
          </>
        ) : null
      }
    >
      <ErrorBox error={failed} />
      <QueryError error={opcos.error} what="the opcos" retry={() => opcos.refetch()} />
      <QueryError error={projects.error} what="the projects" retry={() => projects.refetch()} />
      <h2>Opcos</h2>
      {opcos.data?.opcos.length === 0 ? (
        <p className="empty">
          No opco yet. An opco is the company payments are taken for; a project takes payments once its opco
          is activated. <a href="/docs/guides/opcos-projects">Opcos and projects guide</a>
        </p>
      ) : null}
      {!opcos.data && !opcos.error ? <Skeleton what="opcos" lines={3} /> : null}
      <DataTable
        rows={opcos.data?.opcos ?? []}
        rowKey={(o) => o.opco_id}
        columns={[
          { header: 'Name', cell: (o) => <Link to={`/opcos/${o.opco_id}`}>{o.name}</Link> },
          { header: 'Status', cell: (o) => <Badge value={o.status} /> },
          { header: 'Sub-TPP ID', cell: (o) => o.sub_tpp_id ?? '—' },
          { header: 'Created', cell: (o) => when(o.created_at) },
          {
            header: 'Actions',
            cell: (o) =>
              allows(o, 'submit') ? (
                <button
                  type="button"
                  onClick={() => submit.mutate({ path: { opco_id: o.opco_id }, body: undefined })}
                >
                  Submit
                </button>
              ) : null,
          },
        ]}
      />
      <h2>Projects</h2>
      {projects.data?.projects.length === 0 ? (
        <p className="empty">
          No project yet. A project groups payments under an activated opco; payment links name it.{' '}
          <a href="/docs/guides/opcos-projects">Opcos and projects guide</a>
        </p>
      ) : null}
      <DataTable
        rows={projects.data?.projects ?? []}
        rowKey={(p) => p.project_id}
        columns={[
          { header: 'Project', cell: (p) => p.project_name },
          { header: 'Project ID', cell: (p) => <CopyId value={p.project_id} what="project" /> },
          {
            header: 'Opco',
            cell: (p) =>
              changing === p.project_id && allows(p, 'edit') ? (
                <>
                  <Select
                    label={`Opco of ${p.project_name}`}
                    name="opco_id"
                    value={p.opco_id ?? ''}
                    options={opcoOptions(p.opco_id)}
                    onChange={(v) =>
                      bind.mutate(
                        { path: { project_id: p.project_id }, body: { opco_id: v || null } },
                        { onSuccess: () => setChanging(null) },
                      )
                    }
                  />
                  <button type="button" className="secondary small" onClick={() => setChanging(null)}>
                    Keep {opcoName(p.opco_id)}
                  </button>
                </>
              ) : (
                <>
                  {opcoName(p.opco_id)}{' '}
                  {allows(p, 'edit') ? (
                    <button
                      type="button"
                      className="secondary small"
                      aria-label={`Change the opco of ${p.project_name}`}
                      onClick={() => setChanging(p.project_id)}
                    >
                      Change
                    </button>
                  ) : null}
                </>
              ),
          },
          {
            header: 'State',
            cell: (p) => (
              <>
                {p.is_frozen ? <Badge value="frozen" /> : null}
                {p.archived_at ? <Badge value="archived" /> : <Badge value="active" />}
              </>
            ),
          },
          {
            header: 'Actions',
            cell: (p) =>
              allows(p, 'archive') || allows(p, 'unarchive') ? (
                <button
                  type="button"
                  className="secondary"
                  onClick={() =>
                    (allows(p, 'unarchive') ? unarchive : archive).mutate({
                      path: { project_id: p.project_id },
                      body: undefined,
                    })
                  }
                >
                  {allows(p, 'unarchive') ? 'Unarchive' : 'Archive'}
                </button>
              ) : null,
          },
        ]}
      />
    </Page>
  );
}
