import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { ValidationError } from '../../shared/errors';
import { toPageParams } from '../../shared/pagination';
import { amountTypeIssue } from '../payments/paylink-validation.policy';
import {
  CreateRefundBody,
  ErrorSchema,
  RefundHeadersSchema,
  RefundListQuerySchema,
  RefundListSchema,
  RefundParamsSchema,
  RefundSchema,
  RefundSimulateBody,
  RefundTransactionParamsSchema,
  TransactionRefundListSchema,
} from './refunds.schemas';
import {
  cancelRefund,
  createRefund,
  getRefund,
  listClientRefunds,
  listRefundsOfTransaction,
  refundView,
  simulateRefundOutcome,
} from './refunds.service';

const tags = ['Refunds'];

export async function refundsRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/transactions/:transaction_id/refunds',
    {
      config: { permission: 'payments.refund', idempotency: 'required', errors: [409] },
      schema: {
        tags,
        summary: 'Refund a payment, in whole or in part',
        description:
          'Only a `success` payment (another status: 409). No `amount` refunds what is left; an amount above the ' +
          'refundable amount, zero, negative or with more decimals than the currency is 422 at body.amount. The ' +
          'refunds of a payment never exceed it, also when requests race: a refund of nothing left is 409 ' +
          '`Refund exceeds the refundable amount…`. A network that cannot refund this payment is 422 with the ' +
          'reason. A frozen or archived project still refunds. Requires a non-empty `X-Idempotency-Key` (the ' +
          'payment-link rules: the same key and body replays the refund with 200; another body 409). Emits ' +
          'refund.created, then refund.status_changed as the network takes and settles it.',
        params: RefundTransactionParamsSchema,
        headers: RefundHeadersSchema,
        body: CreateRefundBody,
        response: { 200: RefundSchema, 201: RefundSchema, 409: ErrorSchema },
      },
      // Amounts are decimal strings: a JSON number is refused before the validator could coerce it.
      preValidation: async (request) => {
        const issue = amountTypeIssue(request.body);
        if (issue) throw new ValidationError([issue]);
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const res = await createRefund(
        deps,
        auth,
        request.params.transaction_id,
        request.headers['x-idempotency-key'],
        request.body,
      );
      return reply.status(res.created ? 201 : 200).send(refundView(res.refund, actionViewer(deps, auth)));
    },
  );

  r.get(
    '/transactions/:transaction_id/refunds',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags,
        summary: "A payment's refunds",
        description: 'Oldest first.',
        params: RefundTransactionParamsSchema,
        response: { 200: TransactionRefundListSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      return listRefundsOfTransaction(
        deps,
        auth.clientId,
        request.params.transaction_id,
        actionViewer(deps, auth),
      );
    },
  );

  r.get(
    '/refunds',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags,
        summary: 'List refunds',
        description:
          'Newest first; filters apply before pagination (page_size default 20, maximum 200). ' +
          '`reconciliation_state=manual_review_required` lists the refunds held for manual review.',
        querystring: RefundListQuerySchema,
        response: { 200: RefundListSchema },
      },
    },
    async (request) => {
      const q = request.query;
      const auth = clientAuthOf(request);
      return listClientRefunds(
        deps,
        auth.clientId,
        {
          status: q.status,
          transactionId: q.transaction_id,
          projectId: q.project_id,
          reconciliationState: q.reconciliation_state,
          from: q.from,
          to: q.to,
        },
        toPageParams(q, 20),
        actionViewer(deps, auth),
      );
    },
  );

  r.get(
    '/refunds/:refund_id',
    {
      config: { permission: 'payments.read' },
      schema: { tags, summary: 'Get a refund', params: RefundParamsSchema, response: { 200: RefundSchema } },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      return refundView(
        await getRefund(deps, auth.clientId, request.params.refund_id),
        actionViewer(deps, auth),
      );
    },
  );

  r.post(
    '/refunds/:refund_id/cancel',
    {
      config: { permission: 'payments.refund', bodyless: true, errors: [409] },
      schema: {
        tags,
        summary: 'Cancel a refund before the network takes it',
        description:
          'Only while `pending` and not yet handed to the payment network (`submitted_at` null; `allowed_actions` ' +
          'lists `cancel`). Once submitted, or in another status: 409. Emits refund.status_changed.',
        params: RefundParamsSchema,
        response: { 200: RefundSchema, 409: ErrorSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      return refundView(await cancelRefund(deps, auth, request.params.refund_id), actionViewer(deps, auth));
    },
  );

  r.post(
    '/sandbox/refunds/:refund_id/simulate',
    {
      config: { permission: 'sandbox.simulate', errors: [409] },
      schema: {
        tags: ['Sandbox'],
        summary: 'Make the sandbox bank settle or fail a processing refund',
        description:
          'Sandbox deployments only (404 in production). The sandbox bank reports the outcome through the signed ' +
          'notification route, as it does when a refund settles by itself after SVC_SANDBOX_REFUND_SETTLE_SECONDS; ' +
          'the refund is then read back. A refund that is not `processing`: 409.',
        params: RefundParamsSchema,
        body: RefundSimulateBody,
        response: { 200: RefundSchema, 409: ErrorSchema },
      },
    },
    async (request) => {
      const auth = clientAuthOf(request);
      return refundView(
        await simulateRefundOutcome(deps, auth, request.params.refund_id, request.body.outcome),
        actionViewer(deps, auth),
      );
    },
  );
}
