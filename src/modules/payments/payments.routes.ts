import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { ValidationError } from '../../shared/errors';
import { normalizeSearchQuery, toPageParams } from '../../shared/pagination';
import { createPaymentLink } from './paylink.service';
import { amountTypeIssue } from './paylink-validation.policy';
import { TRANSACTION_AUTH_READ } from './payments.repo';
import {
  ErrorSchema,
  PaylinkBodySchema,
  PaylinkHeadersSchema,
  SimulateBodySchema,
  StatusEventListSchema,
  TransactionListQuerySchema,
  TransactionListSchema,
  TransactionParamsSchema,
  TransactionSchema,
} from './payments.schemas';
import {
  cancelPaymentIntent,
  getTransaction,
  listClientTransactions,
  listTransactionTimeline,
  refreshTransactionStatus,
  simulateProviderStatus,
  toTransactionDto,
} from './payments.service';
import { simulateRequest } from './sandbox-outcome.policy';

export async function paymentsRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/checkout/paylink',
    {
      config: { permission: 'payments.write', idempotency: 'required' },
      schema: {
        tags: ['payments'],
        summary: 'Create a payment link',
        description:
          'Creates a pending transaction and its hosted checkout URL. Requires a non-empty `X-Idempotency-Key`: ' +
          'the same key with the same body returns the original transaction (200); with another body 409; ' +
          'while the first request is still in flight 409. 400 `Opco does not have a valid Sub-TPP ID` means the ' +
          "project's opco is not activated yet: `GET /opcos/{opco_id}` must show `status: activated` (the sandbox " +
          'activates a submitted opco after `SVC_SANDBOX_OPCO_ACTIVATION_SECONDS`, default 10). The payer returns ' +
          "to the client's callback URL, or to this payment's `redirect_url` when given, possibly before the " +
          'final webhook: read the transaction on return.',
        headers: PaylinkHeadersSchema,
        body: PaylinkBodySchema,
        response: { 200: TransactionSchema, 201: TransactionSchema, 409: ErrorSchema },
      },
      // Amounts are decimal strings: a JSON number is refused before the validator could coerce it.
      preValidation: async (request) => {
        const issue = amountTypeIssue(request.body);
        if (issue) throw new ValidationError([issue]);
      },
    },
    async (request, reply) => {
      const auth = clientAuthOf(request);
      const res = await createPaymentLink(deps, auth, request.headers['x-idempotency-key'], request.body);
      return reply
        .status(res.created ? 201 : 200)
        .send(toTransactionDto(deps, res.transaction, actionViewer(deps, auth)));
    },
  );

  r.get(
    '/transactions',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: ['payments'],
        summary: 'List transactions',
        description: 'Newest first; filters apply before pagination (page_size default 10, maximum 200).',
        querystring: TransactionListQuerySchema,
        response: { 200: TransactionListSchema },
      },
    },
    async (request) => {
      const q = request.query;
      return listClientTransactions(
        deps,
        clientAuthOf(request).clientId,
        {
          status: q.status,
          projectId: q.project_id,
          userId: q.user_id,
          originType: q.origin_type,
          reconciliationState: q.reconciliation_state,
          contractRequestId: q.contract_request_id,
          q: normalizeSearchQuery(q.q),
        },
        toPageParams(q, 10),
        actionViewer(deps, clientAuthOf(request)),
      );
    },
  );

  r.get(
    '/transactions/:transaction_id',
    {
      // The read runs in the token check's statement: one round trip for the whole request.
      config: { permission: 'payments.read', authRead: TRANSACTION_AUTH_READ },
      schema: {
        tags: ['payments'],
        summary: 'Get a transaction',
        params: TransactionParamsSchema,
        response: { 200: TransactionSchema },
      },
    },
    async (request) =>
      toTransactionDto(
        deps,
        await getTransaction(
          deps,
          clientAuthOf(request).clientId,
          request.params.transaction_id,
          request.authRow,
        ),
        actionViewer(deps, clientAuthOf(request)),
      ),
  );

  r.get(
    '/transactions/:transaction_id/status-events',
    {
      config: { permission: 'payments.read' },
      schema: {
        tags: ['payments'],
        summary: 'The full status timeline of a transaction',
        description:
          'Every status change, detail-only code, manual review and session restart, oldest first.',
        params: TransactionParamsSchema,
        response: { 200: StatusEventListSchema },
      },
    },
    async (request) =>
      listTransactionTimeline(deps, clientAuthOf(request).clientId, request.params.transaction_id),
  );

  r.post(
    '/transactions/:transaction_id/refresh-status',
    {
      config: { permission: 'payments.refresh', bodyless: true, errors: [429] },
      schema: {
        tags: ['payments'],
        summary: 'Refresh a transaction from the payment network',
        description:
          'Pending and processing only (terminal: 400). Needs a network session with a bank (transfer_id), else 400. ' +
          `One refresh per transaction per cooldown (SVC_REFRESH_COOLDOWN_SECONDS, default 10): 429 with Retry-After.`,
        params: TransactionParamsSchema,
        response: { 200: TransactionSchema, 400: ErrorSchema, 429: ErrorSchema },
      },
    },
    async (request) =>
      toTransactionDto(
        deps,
        await refreshTransactionStatus(deps, clientAuthOf(request), request.params.transaction_id),
        actionViewer(deps, clientAuthOf(request)),
      ),
  );

  r.post(
    '/checkout/intent/:transaction_id/cancel',
    {
      config: { permission: 'payments.write', bodyless: true, errors: [409] },
      schema: {
        tags: ['payments'],
        summary: 'Cancel an outstanding payment intent',
        description:
          'Pending or processing -> canceled (event payment.status_changed). A transaction already in a terminal ' +
          'status answers 409 "Transaction is already in terminal status and cannot be canceled."',
        params: TransactionParamsSchema,
        response: { 200: TransactionSchema, 409: ErrorSchema },
      },
    },
    async (request) =>
      toTransactionDto(
        deps,
        await cancelPaymentIntent(deps, clientAuthOf(request), request.params.transaction_id),
        actionViewer(deps, clientAuthOf(request)),
      ),
  );

  r.post(
    '/sandbox/transactions/:transaction_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Make the sandbox bank report a detail status',
        description:
          'Sandbox deployments only (404 in production). The sandbox bank sends a signed notification to ' +
          '/providers/bank/notifications, exactly as for a real payer action. `manual_review` puts the payment into ' +
          'manual review (status unchanged, reconciliation_state manual_review_required, event emitted), and so ' +
          'does a detail status out of order (`completed` on a pending payment, before the payer authorized). ' +
          '`outcome` (success, failed, insufficient_funds, expired, canceled) walks the payment along the real path ' +
          'to that final status; on a payment in manual review it is how the sandbox resolves the review.',
        params: TransactionParamsSchema,
        body: SimulateBodySchema,
        response: { 200: TransactionSchema },
      },
    },
    async (request) =>
      toTransactionDto(
        deps,
        await simulateProviderStatus(
          deps,
          clientAuthOf(request),
          request.params.transaction_id,
          simulateRequest(request.body),
        ),
        actionViewer(deps, clientAuthOf(request)),
      ),
  );
}
