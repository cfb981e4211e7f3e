import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { normalizeSearchQuery, toPageParams } from '../../shared/pagination';
import { MCC_CODES } from './mcc-catalogue.policy';
import { withOpcoActions } from './opcos.actions';
import {
  CreateOpcoBody,
  ListOpcosQuery,
  MccCodesSchema,
  OpcoIdParams,
  OpcoListSchema,
  OpcoSchema,
  UpdateOpcoBody,
} from './opcos.schemas';
import { createOpco, deleteOpco, getOpco, listOpcos, submitOpco, updateOpco } from './opcos.service';

const tags = ['Opcos'];

export async function opcosRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/opcos/mcc-codes',
    {
      config: { permission: 'opcos.read' },
      schema: {
        tags,
        summary: 'Merchant category code catalogue',
        description: 'The whole ISO 18245 catalogue (codes 0742 to 9950), unpaginated.',
        response: { 200: MccCodesSchema },
      },
    },
    async (_req, reply) => {
      reply.header('Cache-Control', 'private, max-age=3600');
      return { mcc_codes: MCC_CODES as { id: string; description: string }[] };
    },
  );

  r.post(
    '/opcos',
    {
      config: { permission: 'opcos.write' },
      schema: {
        tags,
        summary: 'Create an opco (draft)',
        description:
          'Saved locally in `draft`; nothing is sent to the payment network until submit. ' +
          '`sole_trader` is required for `licensed_tpp_sole_trader`; `ubos`, `directors` and ' +
          '`signatories` (non-empty) for `licensed_tpp_non_sole_trader_private`.',
        body: CreateOpcoBody,
        response: { 201: OpcoSchema },
      },
    },
    async (req, reply) => {
      const auth = clientAuthOf(req);
      const opco = await createOpco(deps, auth.clientId, req.body);
      return reply.status(201).send(withOpcoActions(opco, actionViewer(deps, auth)));
    },
  );

  r.get(
    '/opcos',
    {
      config: { permission: 'opcos.read' },
      schema: {
        tags,
        summary: 'List opcos',
        description: 'Newest first.',
        querystring: ListOpcosQuery,
        response: { 200: OpcoListSchema },
      },
    },
    async (req) => {
      const auth = clientAuthOf(req);
      const viewer = actionViewer(deps, auth);
      const list = await listOpcos(
        deps,
        auth.clientId,
        toPageParams(req.query, 20),
        req.query.status,
        normalizeSearchQuery(req.query.q),
      );
      return { ...list, opcos: list.opcos.map((o) => withOpcoActions(o, viewer)) };
    },
  );

  r.get(
    '/opcos/:opco_id',
    {
      config: { permission: 'opcos.read' },
      schema: { tags, summary: 'Get an opco', params: OpcoIdParams, response: { 200: OpcoSchema } },
    },
    async (req) => {
      const auth = clientAuthOf(req);
      return withOpcoActions(
        await getOpco(deps, auth.clientId, req.params.opco_id),
        actionViewer(deps, auth),
      );
    },
  );

  r.patch(
    '/opcos/:opco_id',
    {
      config: { permission: 'opcos.write' },
      schema: {
        tags,
        summary: 'Edit a draft opco',
        description: 'Only in `draft`; the same rules as create apply to the result.',
        params: OpcoIdParams,
        body: UpdateOpcoBody,
        response: { 200: OpcoSchema },
      },
    },
    async (req) => {
      const auth = clientAuthOf(req);
      return withOpcoActions(
        await updateOpco(deps, auth.clientId, req.params.opco_id, req.body),
        actionViewer(deps, auth),
      );
    },
  );

  r.delete(
    '/opcos/:opco_id',
    {
      config: { permission: 'opcos.write', errors: [409] },
      schema: {
        tags,
        summary: 'Delete a draft opco',
        description: 'Only in `draft`, and only when no project is bound to it.',
        params: OpcoIdParams,
        response: { 204: Type.Null() },
      },
    },
    async (req, reply) => {
      await deleteOpco(deps, clientAuthOf(req).clientId, req.params.opco_id);
      return reply.status(204).send(null);
    },
  );

  r.post(
    '/opcos/:opco_id/submit',
    {
      config: { permission: 'opcos.write', bodyless: true, errors: [409] },
      schema: {
        tags,
        summary: 'Submit a draft opco',
        description:
          'Sandbox: to `awaiting_approval`, activated by the approval simulator after ' +
          '`SVC_SANDBOX_OPCO_ACTIVATION_SECONDS`. Production: to `pending_superadmin_review`.',
        params: OpcoIdParams,
        response: { 200: OpcoSchema },
      },
    },
    async (req) => {
      const auth = clientAuthOf(req);
      return withOpcoActions(
        await submitOpco(deps, auth.clientId, req.params.opco_id),
        actionViewer(deps, auth),
      );
    },
  );
}
