/** /contracts/send, /contracts/requests/… and the sandbox simulate endpoint. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps';
import { actionViewer, clientAuthOf } from '../../../plugins/auth';
import { sendPdf } from '../../../shared/download';
import { toPageParams } from '../../../shared/pagination';
import { contractBodyLimit } from '../contracts.routes';
import {
  AuditTrailSchema,
  CorrectBody,
  DocumentParams,
  ErrorSchema,
  IdemHeaders,
  ListRequestsQuery,
  ParticipantParams,
  PdfSchema,
  RemindBody,
  RequestListSchema,
  RequestParams,
  RequestSchema,
  SendBody,
  SimulateBody,
  VoidBody,
} from '../contracts.schemas';
import { withRequestActions } from './requests.actions';
import {
  auditTrail,
  correctParticipant,
  downloadCertificate,
  downloadDocument,
  getRequest,
  listClientRequests,
  remindRequest,
  voidRequest,
} from './requests.service';
import { sendContract } from './send.service';
import { simulateRequest } from './simulate.service';

const tags = ['Contracts'];
const read = { permission: 'contracts.read' as const };
const send = { permission: 'contracts.send' as const };

export async function contractRequestsRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const forCaller = <V extends Parameters<typeof withRequestActions>[0]>(req: FastifyRequest, view: V) =>
    withRequestActions(view, actionViewer(deps, clientAuthOf(req)));

  r.post(
    '/contracts/send',
    {
      bodyLimit: contractBodyLimit(deps.config.contractMaxDocumentBytes),
      config: { ...send, idempotency: 'optional', errors: [503] },
      schema: {
        tags,
        summary: 'Send a contract request',
        description:
          'Exactly one of `template_id`, `flow_id` (active) or `document` (creates an ad hoc template). The payment is ' +
          'checked now exactly like POST /checkout/paylink and created at completion with key `contract:<id>`. ' +
          'A production deployment without an e-signing adapter answers 503 and stores nothing.',
        headers: IdemHeaders,
        body: SendBody,
        response: { 200: RequestSchema, 201: RequestSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) => {
      const res = await sendContract(deps, clientAuthOf(req), req.headers['x-idempotency-key'], req.body);
      return reply.code(res.status as 201).send(forCaller(req, res.body));
    },
  );

  r.get(
    '/contracts/requests',
    {
      config: read,
      schema: {
        tags,
        summary: 'List contract requests',
        querystring: ListRequestsQuery,
        response: { 200: RequestListSchema },
      },
    },
    async (req) => {
      const q = req.query;
      const list = await listClientRequests(
        deps,
        {
          clientId: clientAuthOf(req).clientId,
          status: q.status,
          flowId: q.flow_id,
          templateId: q.template_id,
          userId: q.user_id,
          businessCustomerId: q.business_customer_id,
          q: q.q,
          from: q.from,
          to: q.to,
        },
        toPageParams(q, 20),
      );
      return { ...list, contract_requests: list.contract_requests.map((v) => forCaller(req, v)) };
    },
  );

  r.get(
    '/contracts/requests/:contract_request_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a contract request',
        params: RequestParams,
        response: { 200: RequestSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(req, await getRequest(deps, clientAuthOf(req).clientId, req.params.contract_request_id)),
  );

  r.post(
    '/contracts/requests/:contract_request_id/void',
    {
      config: send,
      schema: {
        tags,
        summary: 'Void a contract request',
        params: RequestParams,
        body: VoidBody,
        response: { 200: RequestSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(
        req,
        await voidRequest(deps, clientAuthOf(req), req.params.contract_request_id, req.body.reason),
      ),
  );

  r.post(
    '/contracts/requests/:contract_request_id/remind',
    {
      config: { ...send, errors: [429] },
      schema: {
        tags,
        summary: 'Remind participants',
        description:
          'Default: every participant whose turn it is. At most one reminder per participant per ' +
          'SVC_CONTRACT_REMINDER_MIN_INTERVAL_SECONDS (429 with Retry-After).',
        params: RequestParams,
        body: RemindBody,
        response: { 200: RequestSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(
        req,
        await remindRequest(
          deps,
          clientAuthOf(req),
          req.params.contract_request_id,
          req.body?.participant_ids,
        ),
      ),
  );

  r.patch(
    '/contracts/requests/:contract_request_id/participants/:participant_id',
    {
      config: send,
      schema: {
        tags,
        summary: 'Correct a participant',
        description: 'The old signing link stops working; a new one is issued and sent.',
        params: ParticipantParams,
        body: CorrectBody,
        response: { 200: RequestSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(
        req,
        await correctParticipant(
          deps,
          clientAuthOf(req),
          req.params.contract_request_id,
          req.params.participant_id,
          req.body,
        ),
      ),
  );

  r.get(
    '/contracts/requests/:contract_request_id/documents/:document_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Download a document',
        description: 'The original before completion, the sealed signed PDF after.',
        params: DocumentParams,
        response: { 200: PdfSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendPdf(
        reply,
        await downloadDocument(
          deps,
          clientAuthOf(req).clientId,
          req.params.contract_request_id,
          req.params.document_id,
        ),
      ),
  );

  r.get(
    '/contracts/requests/:contract_request_id/certificate',
    {
      config: read,
      schema: {
        tags,
        summary: 'Download the certificate of completion',
        params: RequestParams,
        response: { 200: PdfSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendPdf(
        reply,
        await downloadCertificate(deps, clientAuthOf(req).clientId, req.params.contract_request_id),
      ),
  );

  r.get(
    '/contracts/requests/:contract_request_id/events',
    {
      config: read,
      schema: {
        tags,
        summary: 'The audit trail of a request',
        params: RequestParams,
        response: { 200: AuditTrailSchema, 404: ErrorSchema },
      },
    },
    async (req) => auditTrail(deps, clientAuthOf(req).clientId, req.params.contract_request_id),
  );

  r.post(
    '/sandbox/contracts/requests/:contract_request_id/simulate',
    {
      config: { permission: 'sandbox.simulate', errors: [503] },
      schema: {
        tags: ['sandbox'],
        summary: 'Make the sandbox e-signing provider report an action',
        description:
          'Sandbox only (404 in production). The provider emits a signed notification through the real route.',
        params: RequestParams,
        body: SimulateBody,
        response: { 200: RequestSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      forCaller(
        req,
        await simulateRequest(deps, clientAuthOf(req).clientId, req.params.contract_request_id, req.body),
      ),
  );
}
