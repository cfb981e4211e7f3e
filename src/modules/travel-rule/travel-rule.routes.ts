/** Travel rule: the client API (travel_rule.read / travel_rule.write) and its sandbox endpoints. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps';
import { runIdempotent } from '../../platform/idempotency';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import { withTransferActions } from './allowed-actions.view';
import { TrpIdentitySchema } from './identity.routes';
import { simulateInbound, simulateTransfer } from './sandbox.service';
import { getSettings, putSettings, trpIdentity } from './settings.service';
import {
  cancelTransfer,
  proceedTransfer,
  repairTransfer,
  reviewTransfer,
  submitTxHash,
} from './transfers.actions';
import { createTransfer, getTransfer, listClientTransfers } from './transfers.service';
import {
  CreateTransferBody,
  ErrorSchema,
  InboundBody,
  ListTransfersQuery,
  ListVaspsQuery,
  PatchTransferBody,
  ProceedBody,
  RejectBody,
  SANDBOX_VASP_DOC,
  SettingsBody,
  SettingsSchema,
  SimulateBody,
  TransferIdParams,
  TransferListSchema,
  TransferSchema,
  TxHashBody,
  VaspListSchema,
} from './travel-rule.schemas';
import type { TransferView } from './travel-rule.view';
import { listVasps } from './vasps.service';

const tags = ['Travel rule'];
const read = { permission: 'travel_rule.read' as const };
const write = { permission: 'travel_rule.write' as const };
const STATE_DOC =
  "A status that does not allow the action: 400 `Transfer in status '{status}' does not allow this action`.";

export async function travelRuleRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  /** A transfer as the caller sees it: with the actions it can take. */
  const viewed = async (req: FastifyRequest, view: Promise<TransferView>) =>
    withTransferActions(await view, actionViewer(deps, clientAuthOf(req)));

  // TRP's identity request, relative to the inquiry URL we gave the peer for one client
  // (docs/vendors/trp.md, "Identity"); public like the inquiry URL itself, whose mac it checks.
  // The same at the origin's root, as TRISA's client asks: identity.routes.ts.
  r.get(
    '/providers/travel-rule/trp/notifications/:secret/identity',
    {
      config: { auth: 'public' },
      schema: {
        hide: true,
        params: Type.Object({ secret: Type.String({ maxLength: 200 }) }),
        response: { 200: TrpIdentitySchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      trpIdentity(deps, {
        pathSecret: req.params.secret,
        query: req.query as Record<string, string | string[] | undefined>,
      }),
  );

  r.get(
    '/travel-rule/settings',
    { config: read, schema: { tags, summary: 'Travel-rule settings', response: { 200: SettingsSchema } } },
    async (req) => getSettings(deps, clientAuthOf(req).clientId),
  );

  r.put(
    '/travel-rule/settings',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change travel-rule settings',
        description:
          'Fields left out keep their value. The threshold defaults to SVC_TRAVEL_RULE_DEFAULT_THRESHOLD.',
        body: SettingsBody,
        response: { 200: SettingsSchema, 403: ErrorSchema },
      },
    },
    async (req) => putSettings(deps, clientAuthOf(req), req.body),
  );

  r.post(
    '/travel-rule/transfers',
    {
      config: { ...write, idempotency: 'optional' },
      schema: {
        tags,
        summary: 'Create an outbound travel-rule transfer',
        description:
          'Optional `X-Idempotency-Key`. Below the threshold (same currency): `not_required`, stored and not sent. ' +
          'Otherwise discovery runs at once (from the address, or `beneficiary_vasp_id`) and the answer carries the status ' +
          `reached. ${SANDBOX_VASP_DOC} A deployment without a travel-rule adapter answers 503 and stores nothing.`,
        headers: Type.Object({ 'x-idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
        body: CreateTransferBody,
        response: {
          200: TransferSchema,
          201: TransferSchema,
          400: ErrorSchema,
          403: ErrorSchema,
          404: ErrorSchema,
          409: ErrorSchema,
          503: ErrorSchema,
        },
      },
    },
    async (req, reply) => {
      const auth = clientAuthOf(req);
      const res = await runIdempotent(
        deps,
        {
          clientId: auth.clientId,
          scope: 'travel_rule.transfers.create',
          header: req.headers['x-idempotency-key'],
          required: false,
          payload: req.body,
        },
        async () => ({ status: 201, body: await createTransfer(deps, auth, req.body) }),
      );
      return reply
        .code(res.replayed ? 200 : 201)
        .send(withTransferActions(res.body, actionViewer(deps, auth)));
    },
  );

  r.get(
    '/travel-rule/transfers',
    {
      config: read,
      schema: {
        tags,
        summary: 'List transfers',
        description:
          'Counter list, newest first. `q` searches client_reference, party names, the wallet address and tx_hash.',
        querystring: ListTransfersQuery,
        response: { 200: TransferListSchema },
      },
    },
    async (req) => {
      const q = req.query;
      const auth = clientAuthOf(req);
      const viewer = actionViewer(deps, auth);
      const list = await listClientTransfers(deps, auth.clientId, toPageParams(q, 20), {
        q: q.q,
        status: q.status,
        direction: q.direction,
        asset: q.asset,
        chain: q.chain,
        from: q.from,
        to: q.to,
      });
      return { ...list, transfers: list.transfers.map((t) => withTransferActions(t, viewer)) };
    },
  );

  r.get(
    '/travel-rule/transfers/:transfer_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a transfer',
        params: TransferIdParams,
        response: { 200: TransferSchema, 404: ErrorSchema },
      },
    },
    async (req) => viewed(req, getTransfer(deps, clientAuthOf(req).clientId, req.params.transfer_id)),
  );

  const action = {
    200: TransferSchema,
    400: ErrorSchema,
    403: ErrorSchema,
    404: ErrorSchema,
    503: ErrorSchema,
  };

  r.patch(
    '/travel-rule/transfers/:transfer_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Repair a transfer and send it again',
        description:
          `Only in \`needs_repair\`. The repaired parties' names are screened against the sanctions lists again, ` +
          `as at creation (\`sanctions_matches\`, \`sanctions_screening\`); lists that cannot answer: 503 ` +
          `\`Screening provider is unavailable\`, nothing changed. ${STATE_DOC}`,
        params: TransferIdParams,
        body: PatchTransferBody,
        response: action,
      },
    },
    async (req) => viewed(req, repairTransfer(deps, clientAuthOf(req), req.params.transfer_id, req.body)),
  );

  r.post(
    '/travel-rule/transfers/:transfer_id/tx-hash',
    {
      config: write,
      schema: {
        tags,
        summary: 'Report the on-chain transaction hash (accepted -> completed)',
        description: STATE_DOC,
        params: TransferIdParams,
        body: TxHashBody,
        response: action,
      },
    },
    async (req) =>
      viewed(req, submitTxHash(deps, clientAuthOf(req), req.params.transfer_id, req.body.tx_hash)),
  );

  r.post(
    '/travel-rule/transfers/:transfer_id/proceed',
    {
      config: write,
      schema: {
        tags,
        summary: 'Proceed without counterparty confirmation',
        description: `From \`counterparty_not_reachable\`; the justification is kept. ${STATE_DOC}`,
        params: TransferIdParams,
        body: ProceedBody,
        response: action,
      },
    },
    async (req) =>
      viewed(req, proceedTransfer(deps, clientAuthOf(req), req.params.transfer_id, req.body.justification)),
  );

  r.post(
    '/travel-rule/transfers/:transfer_id/accept',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Accept an inbound transfer',
        description: `Inbound \`awaiting_review\` only; the answer goes back to the originator VASP. ${STATE_DOC}`,
        params: TransferIdParams,
        response: action,
      },
    },
    async (req) =>
      viewed(req, reviewTransfer(deps, clientAuthOf(req), req.params.transfer_id, 'accepted', null)),
  );

  r.post(
    '/travel-rule/transfers/:transfer_id/reject',
    {
      config: write,
      schema: {
        tags,
        summary: 'Reject an inbound transfer',
        description: `Inbound \`awaiting_review\` only; the answer goes back to the originator VASP. ${STATE_DOC}`,
        params: TransferIdParams,
        body: RejectBody,
        response: action,
      },
    },
    async (req) =>
      viewed(
        req,
        reviewTransfer(deps, clientAuthOf(req), req.params.transfer_id, 'rejected', req.body.reason),
      ),
  );

  r.post(
    '/travel-rule/transfers/:transfer_id/cancel',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Cancel a transfer',
        description: `Any non-terminal status; the counterparty is told. ${STATE_DOC}`,
        params: TransferIdParams,
        response: action,
      },
    },
    async (req) => viewed(req, cancelTransfer(deps, clientAuthOf(req), req.params.transfer_id)),
  );

  r.get(
    '/travel-rule/vasps',
    {
      config: read,
      schema: {
        tags,
        summary: 'The VASP directory',
        description: `\`q\` searches name and LEI. ${SANDBOX_VASP_DOC}`,
        querystring: ListVaspsQuery,
        response: { 200: VaspListSchema, 503: ErrorSchema },
      },
    },
    async (req) => listVasps(deps, toPageParams(req.query, 20), req.query.q),
  );

  r.post(
    '/sandbox/travel-rule/transfers/:transfer_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'The counterparty answers a sandbox transfer',
        description:
          'Sandbox only (404 in production). The network simulator sends the answer through the signed ' +
          `/providers/travel-rule/notifications route. ${STATE_DOC}`,
        params: TransferIdParams,
        body: SimulateBody,
        response: { 200: TransferSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => viewed(req, simulateTransfer(deps, clientAuthOf(req), req.params.transfer_id, req.body)),
  );

  r.post(
    '/sandbox/travel-rule/inbound',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'An originator VASP sends the client an inbound transfer',
        description:
          'Sandbox only (404 in production). Delivered by the network simulator through the signed route; ' +
          '`name_match` is checked against the customer owning `beneficiary_address` (a screened wallet of the client).',
        body: InboundBody,
        response: { 201: TransferSchema, 403: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await viewed(req, simulateInbound(deps, clientAuthOf(req), req.body))),
  );
}
