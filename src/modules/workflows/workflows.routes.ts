import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import { cancelRun, getRun, listRuns, startRun } from './runs.service';
import {
  CreateWorkflowBody,
  ErrorSchema,
  ForkWorkflowBody,
  IdempotencyHeaders,
  ListRunsQuery,
  ListWorkflowsQuery,
  PublishedWorkflowSchema,
  RunDetailSchema,
  RunIdParams,
  RunListSchema,
  RunSchema,
  StartRunBody,
  TriggerSecretSchema,
  UpdateWorkflowBody,
  WorkflowIdParams,
  WorkflowListSchema,
  WorkflowSchema,
} from './workflows.schemas';
import {
  createDefinition,
  deleteDefinition,
  forkDefinition,
  getDefinition,
  listDefinitions,
  publishDefinition,
  rotateTriggerSecret,
  setDefinitionArchived,
  updateDraft,
} from './workflows.service';

const tags = ['Workflows'];
const GRAPH_DOC =
  'Graph: `{"trigger": {"type": "manual"|"webhook"}, "nodes": [{"id", "type", "config", "next"}]}`; a condition ' +
  'node has `on_true` / `on_false` instead of `next`. Configs may use `{{input.x}}` and `{{steps.<id>.<field>}}`. ' +
  'Problems are 422 with `loc` at the node, e.g. `["body","graph","nodes",2,"type"]`. A literal id in a config ' +
  '(`project_id`, `user_id`, `template_id`, ...) must name your own resource: otherwise 404 `<Resource> not found`.';

export async function workflowsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { permission: 'workflows.read' as const };
  const write = { permission: 'workflows.write' as const };

  r.post(
    '/workflows',
    {
      // A literal id in a node's config that is not the client's: 404 `<Resource> not found`.
      config: { ...write, errors: [404] },
      schema: {
        tags,
        summary: 'Create a workflow (DRAFT)',
        description: GRAPH_DOC,
        body: CreateWorkflowBody,
        response: { 201: WorkflowSchema },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await createDefinition(deps, clientAuthOf(req).clientId, req.body)),
  );

  r.get(
    '/workflows',
    {
      config: read,
      schema: {
        tags,
        summary: 'List workflows',
        description:
          'Own workflows newest first, then the read-only system templates (`is_template: true`) that can be ' +
          'forked. Archived workflows only with `include_archived=true`.',
        querystring: ListWorkflowsQuery,
        response: { 200: WorkflowListSchema },
      },
    },
    async (req) =>
      listDefinitions(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), {
        includeArchived: req.query.include_archived,
        includeTemplates: req.query.include_templates,
        status: req.query.status,
      }),
  );

  r.get(
    '/workflows/:definition_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a workflow or template',
        params: WorkflowIdParams,
        response: { 200: WorkflowSchema },
      },
    },
    async (req) => getDefinition(deps, clientAuthOf(req).clientId, req.params.definition_id),
  );

  r.put(
    '/workflows/:definition_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Edit a draft',
        description: `Drafts only: a published workflow is 400 (fork it instead); a template is 400. ${GRAPH_DOC}`,
        params: WorkflowIdParams,
        body: UpdateWorkflowBody,
        response: { 200: WorkflowSchema, 400: ErrorSchema },
      },
    },
    async (req) => updateDraft(deps, clientAuthOf(req).clientId, req.params.definition_id, req.body),
  );

  r.delete(
    '/workflows/:definition_id',
    {
      config: { ...write, errors: [409] },
      schema: {
        tags,
        summary: 'Delete a workflow',
        description: 'Only a workflow without runs (409 otherwise: archive it instead).',
        params: WorkflowIdParams,
        response: { 204: Type.Null(), 409: ErrorSchema },
      },
    },
    async (req, reply) => {
      await deleteDefinition(deps, clientAuthOf(req).clientId, req.params.definition_id);
      return reply.status(204).send(null);
    },
  );

  r.post(
    '/workflows/:definition_id/fork',
    {
      config: write,
      schema: {
        tags,
        summary: 'Fork a template or own workflow into a new draft',
        params: WorkflowIdParams,
        body: ForkWorkflowBody,
        response: { 201: WorkflowSchema },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          await forkDefinition(deps, clientAuthOf(req).clientId, req.params.definition_id, req.body ?? {}),
        ),
  );

  r.post(
    '/workflows/:definition_id/publish',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Publish a draft',
        description:
          'DRAFT to PUBLISHED; immutable afterwards. A webhook-triggered workflow gets its `trigger_url` and a ' +
          'signing secret, returned once in `trigger_secret`. A node type without a backing capability ' +
          '(`contract`) is 400 naming the node; a node whose use case the caller may not use directly (e.g. ' +
          '`transfer` needs `payments.write`) is 403 naming the node.',
        params: WorkflowIdParams,
        response: { 200: PublishedWorkflowSchema, 400: ErrorSchema },
      },
    },
    async (req) => publishDefinition(deps, clientAuthOf(req), req.params.definition_id),
  );

  r.post(
    '/workflows/:definition_id/trigger-secret',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Rotate the trigger signing secret',
        description:
          'Mints a fresh HMAC signing secret, returned once in `trigger_secret`; the previous secret stops working at once.',
        params: WorkflowIdParams,
        response: { 200: TriggerSecretSchema, 400: ErrorSchema },
      },
    },
    async (req) => rotateTriggerSecret(deps, clientAuthOf(req).clientId, req.params.definition_id),
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    r.post(
      `/workflows/:definition_id/${action}`,
      {
        config: { ...write, bodyless: true },
        schema: {
          tags,
          summary: archived ? 'Archive a workflow' : 'Unarchive a workflow',
          description: archived
            ? 'Hides the workflow from default lists and refuses new runs; existing runs go on. Idempotent.'
            : 'Idempotent.',
          params: WorkflowIdParams,
          response: { 200: WorkflowSchema },
        },
      },
      async (req) =>
        setDefinitionArchived(deps, clientAuthOf(req).clientId, req.params.definition_id, archived),
    );
  }

  r.post(
    '/workflows/:definition_id/runs',
    {
      config: { ...write, idempotency: 'optional' },
      schema: {
        tags,
        summary: 'Start a run',
        description:
          'Published, non-archived workflows only (400 otherwise). The run starts `pending` and the engine executes ' +
          'it in the background; `workflow.run.started` is emitted now. With `X-Idempotency-Key`, the same key and ' +
          'input return the same run (200); another input with the key is 409.',
        params: WorkflowIdParams,
        headers: IdempotencyHeaders,
        body: StartRunBody,
        response: { 200: RunSchema, 201: RunSchema, 400: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (req, reply) => {
      const res = await startRun(
        deps,
        clientAuthOf(req),
        req.params.definition_id,
        req.body?.input ?? {},
        req.headers['x-idempotency-key'],
      );
      return reply.status(res.created ? 201 : 200).send(res.run);
    },
  );

  r.get(
    '/workflow-runs',
    {
      config: read,
      schema: {
        tags,
        summary: 'List runs',
        description: 'Newest first; filter by `workflow_definition_id` and `status`.',
        querystring: ListRunsQuery,
        response: { 200: RunListSchema },
      },
    },
    async (req) =>
      listRuns(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), {
        definitionId: req.query.workflow_definition_id,
        status: req.query.status,
      }),
  );

  r.get(
    '/workflow-runs/:run_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a run with its steps',
        params: RunIdParams,
        response: { 200: RunDetailSchema },
      },
    },
    async (req) => getRun(deps, clientAuthOf(req).clientId, req.params.run_id),
  );

  r.post(
    '/workflow-runs/:run_id/cancel',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Cancel a run',
        description: 'Pending, running or waiting runs; a finished run is 400.',
        params: RunIdParams,
        response: { 200: RunSchema, 400: ErrorSchema },
      },
    },
    async (req) => cancelRun(deps, clientAuthOf(req).clientId, req.params.run_id),
  );
}
