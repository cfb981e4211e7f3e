/** Wallet ownership requests: the client API (screening.read / screening.write) and the sandbox simulate endpoint. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import { withOwnershipActions } from './ownership.actions';
import {
  CreateOwnershipBody,
  ListOwnershipQuery,
  OwnershipListSchema,
  OwnershipSchema,
  ProofBody,
  RequestIdParams,
  SimulateOwnershipBody,
} from './ownership.schemas';
import {
  cancelOwnershipRequest,
  createOwnershipRequest,
  getOwnershipRequest,
  listOwnershipRequests,
  type OwnershipView,
  submitProof,
} from './ownership.service';
import { simulateOwnership } from './ownership-deposits.service';
import { ErrorSchema } from './screening.schemas';

const tags = ['Wallet ownership'];
const read = { permission: 'screening.read' as const };
const write = { permission: 'screening.write' as const };

export async function ownershipRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  /** A request as the caller sees it: with the actions it can take. */
  const viewed = async (req: FastifyRequest, view: Promise<OwnershipView>) =>
    withOwnershipActions(await view, actionViewer(deps, clientAuthOf(req)));
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });

  r.post(
    '/screening/wallet-ownership/requests',
    {
      config: write,
      schema: {
        tags,
        summary: 'Ask a customer to prove control of a wallet',
        description:
          'Exactly one of user_id or business_customer_id. The challenge message is ' +
          '"{client name} asks you to prove control of {address} on {chain}. Nonce: {nonce}. Issued: {created_at}". ' +
          '`proof_url` is the hosted proof page (emailed to the customer with `delivery: email`). ' +
          'Sends screening.wallet_ownership.status_changed (previous_status null). A wallet with an open ' +
          'request (pending or verifying, not expired) takes no second one: 409 naming the open request.',
        body: CreateOwnershipBody,
        response: {
          201: OwnershipSchema,
          400: ErrorSchema,
          403: ErrorSchema,
          404: ErrorSchema,
          409: ErrorSchema,
          503: ErrorSchema,
        },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await viewed(req, createOwnershipRequest(deps, clientAuthOf(req), req.body))),
  );

  r.get(
    '/screening/wallet-ownership/requests',
    {
      config: read,
      schema: {
        tags,
        summary: 'List ownership requests',
        description: 'Newest first. `q` searches the address.',
        querystring: ListOwnershipQuery,
        response: { 200: OwnershipListSchema },
      },
    },
    async (req) => {
      const q = req.query;
      const auth = clientAuthOf(req);
      const viewer = actionViewer(deps, auth);
      const list = await listOwnershipRequests(deps, auth.clientId, toPageParams(q, 20), {
        status: q.status,
        chain: q.chain,
        userId: q.user_id,
        businessCustomerId: q.business_customer_id,
        q: q.q,
      });
      return {
        ...list,
        ownership_requests: list.ownership_requests.map((o) => withOwnershipActions(o, viewer)),
      };
    },
  );

  r.get(
    '/screening/wallet-ownership/requests/:request_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get an ownership request',
        params: RequestIdParams,
        response: { 200: OwnershipSchema, 404: ErrorSchema },
      },
    },
    async (req) => viewed(req, getOwnershipRequest(deps, clientAuthOf(req).clientId, req.params.request_id)),
  );

  r.post(
    '/screening/wallet-ownership/requests/:request_id/proof',
    {
      config: write,
      schema: {
        tags,
        summary: 'Submit a proof',
        description:
          '`message_signing` with `signature` (EVM: EIP-191 personal_sign; solana: ed25519 over the UTF-8 message), ' +
          'verified locally; a wrong one is 400 `Invalid signature` and costs an attempt (at 0 the request fails). ' +
          '`satoshi_test` moves to `verifying` and returns the deposit details. `self_declaration` with ' +
          '`declarant_name` verifies with assurance low.',
        params: RequestIdParams,
        body: ProofBody,
        response: { 200: OwnershipSchema, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => viewed(req, submitProof(deps, clientAuthOf(req), req.params.request_id, req.body)),
  );

  r.post(
    '/screening/wallet-ownership/requests/:request_id/cancel',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Cancel an ownership request',
        description: 'pending or verifying only; the wallet goes back to its previous ownership status.',
        params: RequestIdParams,
        response: { 200: OwnershipSchema, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => viewed(req, cancelOwnershipRequest(deps, clientAuthOf(req), req.params.request_id)),
  );

  r.post(
    '/sandbox/screening/wallet-ownership/requests/:request_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Simulate the chain observer or expiry',
        description:
          'Sandbox only (404 in production). `deposit_received` / `deposit_wrong_amount` (verifying only) make the ' +
          'sandbox chain observer report a deposit through the signed notification route; `expire` expires the request.',
        params: RequestIdParams,
        body: SimulateOwnershipBody,
        response: { 200: OwnershipSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      viewed(req, simulateOwnership(deps, clientAuthOf(req), req.params.request_id, req.body.action)),
  );
}
