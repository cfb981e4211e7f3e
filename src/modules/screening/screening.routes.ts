/** Wallet screening: the client API (screening.read / screening.write) and its sandbox simulate endpoint. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import {
  ErrorSchema,
  ListWalletsQuery,
  PatchWalletBody,
  ScreenBody,
  ScreeningIdParams,
  ScreeningSchema,
  SimulateScreeningBody,
  WalletDetailSchema,
  WalletIdParams,
  WalletListSchema,
} from './screening.schemas';
import {
  getScreening,
  getWallet,
  listClientWallets,
  patchWallet,
  rescreenClientWallet,
  screenWallet,
  simulateScreening,
} from './screening.service';

const tags = ['Wallet screening'];
const read = { permission: 'screening.read' as const };
const write = { permission: 'screening.write' as const };

export async function screeningRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preValidation', async (req) => {
    if (req.method === 'POST' && (req.body === undefined || req.body === null)) req.body = {};
  });

  r.post(
    '/screening/wallet',
    {
      config: write,
      schema: {
        tags,
        summary: 'Screen a wallet',
        description:
          'Answers 201 with the screening; when a completed screening of the same wallet is younger than ' +
          '`max_age_seconds`, 200 with that screening and `cached: true`. The provider gets ' +
          'SVC_SCREENING_SYNC_TIMEOUT_MS; otherwise the answer is `pending` and the result arrives by notification ' +
          '(screening.wallet.completed). Unknown risk is never low. A deployment without a screening adapter answers 503.',
        body: ScreenBody,
        response: {
          200: ScreeningSchema,
          201: ScreeningSchema,
          403: ErrorSchema,
          404: ErrorSchema,
          503: ErrorSchema,
        },
      },
    },
    async (req, reply) => {
      const res = await screenWallet(deps, clientAuthOf(req), req.body);
      return reply.code(res.status as 200 | 201).send(res.body);
    },
  );

  r.get(
    '/screening/wallet/:screening_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a screening',
        params: ScreeningIdParams,
        response: { 200: ScreeningSchema, 404: ErrorSchema },
      },
    },
    async (req) => getScreening(deps, clientAuthOf(req).clientId, req.params.screening_id),
  );

  r.get(
    '/screening/wallets',
    {
      config: read,
      schema: {
        tags,
        summary: 'List wallets',
        description: 'Counter list, newest first. `q` searches the address and the label.',
        querystring: ListWalletsQuery,
        response: { 200: WalletListSchema },
      },
    },
    async (req) => {
      const q = req.query;
      return listClientWallets(deps, clientAuthOf(req).clientId, toPageParams(q, 20), {
        q: q.q,
        chain: q.chain,
        riskLevel: q.risk_level,
        sanctionsHit: q.sanctions_hit,
        ownershipStatus: q.ownership_status,
        monitored: q.monitored,
        userId: q.user_id,
        businessCustomerId: q.business_customer_id,
      });
    },
  );

  r.get(
    '/screening/wallets/:wallet_id',
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a wallet with its latest 20 screenings',
        params: WalletIdParams,
        response: { 200: WalletDetailSchema, 404: ErrorSchema },
      },
    },
    async (req) => getWallet(deps, clientAuthOf(req).clientId, req.params.wallet_id),
  );

  r.patch(
    '/screening/wallets/:wallet_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Change label, monitoring or customer',
        description: `Monitored wallets are re-screened every SVC_SCREENING_RESCREEN_HOURS (trigger \`monitoring\`).`,
        params: WalletIdParams,
        body: PatchWalletBody,
        response: { 200: WalletDetailSchema, 403: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => patchWallet(deps, clientAuthOf(req), req.params.wallet_id, req.body),
  );

  r.post(
    '/screening/wallets/:wallet_id/rescreen',
    {
      config: { ...write, bodyless: true },
      schema: {
        tags,
        summary: 'Re-screen a wallet',
        description: 'A new screening (trigger `rescreen`).',
        params: WalletIdParams,
        response: { 201: ScreeningSchema, 403: ErrorSchema, 404: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await rescreenClientWallet(deps, clientAuthOf(req), req.params.wallet_id)),
  );

  r.post(
    '/sandbox/screening/wallet/:screening_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Complete a pending sandbox screening',
        description:
          'Sandbox only (404 in production). The simulator sends the result through the signed ' +
          '/providers/screening/notifications route. Pending screenings only (400 otherwise).',
        params: ScreeningIdParams,
        body: SimulateScreeningBody,
        response: { 200: ScreeningSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) => simulateScreening(deps, clientAuthOf(req), req.params.screening_id, req.body),
  );
}
