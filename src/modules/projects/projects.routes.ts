import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { normalizeSearchQuery, toPageParams } from '../../shared/pagination';
import { withProjectActions } from './projects.actions';
import {
  CreateProjectBody,
  ListProjectsQuery,
  ProjectIdParams,
  ProjectListSchema,
  ProjectSchema,
  UpdateProjectBody,
} from './projects.schemas';
import {
  createProject,
  getProject,
  listProjects,
  setProjectArchived,
  updateProject,
} from './projects.service';

const tags = ['Projects'];

export async function projectsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const caller = (req: Parameters<typeof clientAuthOf>[0]) => {
    const auth = clientAuthOf(req);
    return { clientId: auth.clientId, viewer: actionViewer(deps, auth) };
  };

  r.post(
    '/projects',
    {
      config: { permission: 'projects.write' },
      schema: {
        tags,
        summary: 'Create a project',
        description:
          'Binding to another client\'s opco is 400 "Target opco belongs to a different client"; ' +
          'to a rejected or deactivated opco 400; to an unknown opco 404.',
        body: CreateProjectBody,
        response: { 201: ProjectSchema },
      },
    },
    async (req, reply) => {
      const { clientId, viewer } = caller(req);
      return reply
        .status(201)
        .send(withProjectActions(await createProject(deps, clientId, req.body), viewer));
    },
  );

  r.get(
    '/projects',
    {
      config: { permission: 'projects.read' },
      schema: {
        tags,
        summary: 'List projects',
        description: 'Newest first; archived projects only with `include_archived=true`.',
        querystring: ListProjectsQuery,
        response: { 200: ProjectListSchema },
      },
    },
    async (req) => {
      const { clientId, viewer } = caller(req);
      const list = await listProjects(
        deps,
        clientId,
        toPageParams(req.query, 20),
        req.query.include_archived,
        normalizeSearchQuery(req.query.q),
      );
      return { ...list, projects: list.projects.map((p) => withProjectActions(p, viewer)) };
    },
  );

  r.get(
    '/projects/:project_id',
    {
      config: { permission: 'projects.read' },
      schema: { tags, summary: 'Get a project', params: ProjectIdParams, response: { 200: ProjectSchema } },
    },
    async (req) => {
      const { clientId, viewer } = caller(req);
      return withProjectActions(await getProject(deps, clientId, req.params.project_id), viewer);
    },
  );

  r.patch(
    '/projects/:project_id',
    {
      config: { permission: 'projects.write' },
      schema: {
        tags,
        summary: 'Update a project',
        description: 'Rename, or bind (`opco_id`) / unbind (`opco_id: null`) an opco.',
        params: ProjectIdParams,
        body: UpdateProjectBody,
        response: { 200: ProjectSchema },
      },
    },
    async (req) => {
      const { clientId, viewer } = caller(req);
      return withProjectActions(await updateProject(deps, clientId, req.params.project_id, req.body), viewer);
    },
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    r.post(
      `/projects/:project_id/${action}`,
      {
        config: { permission: 'projects.write', bodyless: true },
        schema: {
          tags,
          summary: archived ? 'Archive a project' : 'Unarchive a project',
          description: archived
            ? 'Hides the project from default lists and stops new payments; existing ones are untouched. Idempotent.'
            : 'Idempotent.',
          params: ProjectIdParams,
          response: { 200: ProjectSchema },
        },
      },
      async (req) => {
        const { clientId, viewer } = caller(req);
        return withProjectActions(
          await setProjectArchived(deps, clientId, req.params.project_id, archived),
          viewer,
        );
      },
    );
  }
}
