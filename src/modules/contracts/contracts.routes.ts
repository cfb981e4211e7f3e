/** /contracts/templates and /contracts/workflows (contracts.read / contracts.templates.write). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { sendPdf } from '../../shared/download';
import { toPageParams } from '../../shared/pagination';
import {
  CreateTemplateBody,
  ErrorSchema,
  ListTemplatesQuery,
  PatchTemplateBody,
  PdfSchema,
  TemplateListSchema,
  TemplateParams,
  TemplateSchema,
} from './contracts.schemas';
import { withFlowActions } from './flows/flows.actions';
import {
  FlowBody,
  FlowListSchema,
  FlowParams,
  FlowSchema,
  ListFlowsQuery,
  PatchFlowBody,
} from './flows/flows.schemas';
import {
  activateFlow,
  createFlow,
  deleteFlow,
  getFlow,
  listFlows,
  patchFlow,
  setFlowArchived,
} from './flows/flows.service';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  patchTemplate,
  setTemplateArchived,
  templateDocument,
} from './templates/templates.service';

const tags = ['Contracts'];
const read = { permission: 'contracts.read' as const };
const write = { permission: 'contracts.templates.write' as const };

export function contractBodyLimit(maxBytes: number): number {
  return Math.ceil((maxBytes * 4) / 3) + 512 * 1024;
}

export async function contractsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const bodyLimit = contractBodyLimit(deps.config.contractMaxDocumentBytes);
  const forCaller = <V extends Parameters<typeof withFlowActions>[0]>(req: FastifyRequest, view: V) =>
    withFlowActions(view, actionViewer(deps, clientAuthOf(req)));

  r.post(
    '/contracts/templates',
    {
      bodyLimit,
      config: write,
      schema: {
        tags,
        summary: 'Create a contract template',
        description:
          'A PDF (checked by its %PDF- bytes, at most SVC_CONTRACT_MAX_DOCUMENT_BYTES) with roles and fields placed as ' +
          'fractions of the page. Problems are 422 with the loc of the field.',
        body: CreateTemplateBody,
        response: { 201: TemplateSchema },
      },
    },
    async (req, reply) => reply.code(201).send(await createTemplate(deps, clientAuthOf(req), req.body)),
  );

  r.get(
    '/contracts/templates',
    {
      config: read,
      schema: {
        tags,
        summary: 'List contract templates',
        querystring: ListTemplatesQuery,
        response: { 200: TemplateListSchema },
      },
    },
    async (req) => listTemplates(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), req.query),
  );

  r.get(
    '/contracts/templates/:template_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a contract template',
        params: TemplateParams,
        response: { 200: TemplateSchema, 404: ErrorSchema },
      },
    },
    async (req) => getTemplate(deps, clientAuthOf(req).clientId, req.params.template_id),
  );

  r.patch(
    '/contracts/templates/:template_id',
    {
      bodyLimit,
      config: write,
      schema: {
        tags,
        summary: 'Edit a contract template',
        description:
          'Each edit increases `version`; requests already sent keep the version they were sent with.',
        params: TemplateParams,
        body: PatchTemplateBody,
        response: { 200: TemplateSchema, 404: ErrorSchema },
      },
    },
    async (req) => patchTemplate(deps, clientAuthOf(req), req.params.template_id, req.body),
  );

  r.delete(
    '/contracts/templates/:template_id',
    {
      config: { ...write, errors: [409] },
      schema: {
        tags,
        summary: 'Delete an unused contract template',
        params: TemplateParams,
        response: { 204: Type.Null({ description: 'Deleted' }), 404: ErrorSchema, 409: ErrorSchema },
      },
    },
    async (req, reply) => {
      await deleteTemplate(deps, clientAuthOf(req), req.params.template_id);
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/contracts/templates/:template_id/document',
    {
      config: read,
      schema: {
        tags,
        summary: "Download the template's PDF",
        params: TemplateParams,
        response: { 200: PdfSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendPdf(reply, await templateDocument(deps, clientAuthOf(req).clientId, req.params.template_id)),
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    r.post(
      `/contracts/templates/:template_id/${action}`,
      {
        config: { ...write, bodyless: true },
        schema: {
          tags,
          summary: `${action === 'archive' ? 'Archive' : 'Unarchive'} a contract template`,
          params: TemplateParams,
          response: { 200: TemplateSchema, 404: ErrorSchema },
        },
      },
      async (req) => setTemplateArchived(deps, clientAuthOf(req), req.params.template_id, archived),
    );
    r.post(
      `/contracts/workflows/:flow_id/${action}`,
      {
        config: { ...write, bodyless: true },
        schema: {
          tags,
          summary: `${action === 'archive' ? 'Archive' : 'Unarchive'} a contract flow`,
          params: FlowParams,
          response: { 200: FlowSchema, 404: ErrorSchema },
        },
      },
      async (req) =>
        forCaller(req, await setFlowArchived(deps, clientAuthOf(req), req.params.flow_id, archived)),
    );
  }

  r.post(
    '/contracts/workflows',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a contract flow (draft)',
        description:
          '1-5 templates merged by role key (the same role is one participant); an optional payment step paid by `payer_role`.',
        body: FlowBody,
        response: { 201: FlowSchema },
      },
    },
    async (req, reply) =>
      reply.code(201).send(forCaller(req, await createFlow(deps, clientAuthOf(req), req.body))),
  );

  r.get(
    '/contracts/workflows',
    {
      config: read,
      schema: {
        tags,
        summary: 'List contract flows',
        querystring: ListFlowsQuery,
        response: { 200: FlowListSchema },
      },
    },
    async (req) => {
      const list = await listFlows(deps, clientAuthOf(req).clientId, toPageParams(req.query, 20), req.query);
      return { ...list, flows: list.flows.map((f) => forCaller(req, f)) };
    },
  );

  r.get(
    '/contracts/workflows/:flow_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a contract flow',
        params: FlowParams,
        response: { 200: FlowSchema, 404: ErrorSchema },
      },
    },
    async (req) => forCaller(req, await getFlow(deps, clientAuthOf(req).clientId, req.params.flow_id)),
  );

  r.patch(
    '/contracts/workflows/:flow_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Edit a draft contract flow',
        params: FlowParams,
        body: PatchFlowBody,
        response: { 200: FlowSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(req, await patchFlow(deps, clientAuthOf(req), req.params.flow_id, req.body as never)),
  );

  r.delete(
    '/contracts/workflows/:flow_id',
    {
      config: { ...write, errors: [409] },
      schema: {
        tags,
        summary: 'Delete a draft contract flow without requests',
        params: FlowParams,
        response: {
          204: Type.Null({ description: 'Deleted' }),
          400: ErrorSchema,
          404: ErrorSchema,
          409: ErrorSchema,
        },
      },
    },
    async (req, reply) => {
      await deleteFlow(deps, clientAuthOf(req), req.params.flow_id);
      return reply.code(204).send(null);
    },
  );

  r.post(
    '/contracts/workflows/:flow_id/activate',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Activate a contract flow',
        params: FlowParams,
        response: { 200: FlowSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => forCaller(req, await activateFlow(deps, clientAuthOf(req), req.params.flow_id)),
  );
}
