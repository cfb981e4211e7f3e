/** Transaction monitoring: /monitoring/transactions, /monitoring/policy (+ test, backtest), sandbox simulate. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { sendDownload } from '../../shared/download';
import { toPageParams } from '../../shared/pagination';
import { backtestPolicy } from './backtest.service';
import { withMonitoringActions } from './monitoring.actions';
import {
  BacktestBodySchema,
  BacktestResultSchema,
  DocumentParams,
  ErrorSchema,
  FileSchema,
  IdParams,
  ListQuery,
  MonitoredListSchema,
  MonitoredTransactionSchema,
  PolicyInputSchema,
  PolicySchema,
  ReviewBodySchema,
  SimulateBodySchema,
  SubmitBodySchema,
  TestBodySchema,
  TestResultSchema,
} from './monitoring.schemas';
import {
  getMonitored,
  getPolicy,
  listMonitoredTransactions,
  replacePolicy,
  submitTransaction,
  testPolicy,
} from './monitoring.service';
import { downloadRemediationDocument } from './remediation.service';
import { reviewTransaction, simulateRemediation } from './reviews.transitions';

const tags = ['Transaction monitoring'];

export async function monitoringRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const withActions = <V extends Parameters<typeof withMonitoringActions>[0]>(
    req: Parameters<typeof clientAuthOf>[0],
    view: V,
  ) => withMonitoringActions(view, actionViewer(deps, clientAuthOf(req)));

  r.post(
    '/monitoring/transactions',
    {
      config: { permission: 'monitoring.write', errors: [409] },
      schema: {
        tags,
        summary: 'Submit a transaction for monitoring',
        description:
          'Evaluates the current policy (sanctions, decline, require_user, review, approve: the first that matches ' +
          'decides) and answers 201 with the decision. The same client_reference with the same payload answers 200 ' +
          'with the stored record; with another payload 409. Sends monitoring.transaction.status_changed with ' +
          'previous_decision "NONE".',
        body: SubmitBodySchema,
        response: {
          200: MonitoredTransactionSchema,
          201: MonitoredTransactionSchema,
          403: ErrorSchema,
          404: ErrorSchema,
          409: ErrorSchema,
          503: ErrorSchema,
        },
      },
    },
    async (req, reply) => {
      const res = await submitTransaction(deps, clientAuthOf(req), req.body);
      return reply.code(res.status).send(withActions(req, res.body));
    },
  );

  r.get(
    '/monitoring/transactions',
    {
      config: { permission: 'monitoring.read' },
      schema: {
        tags,
        summary: 'List monitored transactions',
        description:
          'Newest first, with the counters at the top level. `q` searches client_reference, counterparty name, ' +
          'account identifier and customer external_id.',
        querystring: ListQuery,
        response: { 200: MonitoredListSchema },
      },
    },
    async (req) => {
      const q = req.query;
      const auth = clientAuthOf(req);
      const viewer = actionViewer(deps, auth);
      const list = await listMonitoredTransactions(
        deps,
        {
          clientId: auth.clientId,
          q: q.q,
          decision: q.decision,
          direction: q.direction,
          sanctionsHit: q.sanctions_hit,
          userId: q.user_id,
          businessCustomerId: q.business_customer_id,
          remediationStatus: q.remediation_status,
          from: q.from ? new Date(q.from) : undefined,
          to: q.to ? new Date(q.to) : undefined,
        },
        toPageParams(q, 20),
      );
      return {
        ...list,
        monitored_transactions: list.monitored_transactions.map((m) => withMonitoringActions(m, viewer)),
      };
    },
  );

  r.get(
    '/monitoring/transactions/:monitored_transaction_id',
    {
      config: { permission: 'monitoring.read' },
      schema: {
        tags,
        summary: 'Get a monitored transaction',
        params: IdParams,
        response: { 200: MonitoredTransactionSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      withActions(
        req,
        await getMonitored(deps, clientAuthOf(req).clientId, req.params.monitored_transaction_id),
      ),
  );

  r.get(
    '/monitoring/transactions/:monitored_transaction_id/remediation/documents/:document_id',
    {
      config: { permission: 'monitoring.read' },
      schema: {
        tags,
        summary: 'Download a remediation document',
        description:
          'The document the customer uploaded with a source_of_funds remediation (referenced in ' +
          '`remediation.answers.document`), with its content type decided from its bytes, as ' +
          '`Content-Disposition: attachment`.',
        params: DocumentParams,
        response: { 200: FileSchema, 404: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendDownload(
        reply,
        await downloadRemediationDocument(
          deps,
          clientAuthOf(req).clientId,
          req.params.monitored_transaction_id,
          req.params.document_id,
        ),
      ),
  );

  r.post(
    '/monitoring/transactions/:monitored_transaction_id/review',
    {
      config: { permission: 'monitoring.review' },
      schema: {
        tags,
        summary: 'Review a decision',
        description:
          'IN_REVIEW → APPROVED, DECLINED or AWAITING_USER (with remediation_type); AWAITING_USER → APPROVED or ' +
          'DECLINED (the remediation link is revoked). APPROVED with a sanctions hit needs clear_sanctions_match, ' +
          "which adds the matched names to the client's sanctions allowlist.",
        params: IdParams,
        body: ReviewBodySchema,
        response: { 200: MonitoredTransactionSchema, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      withActions(
        req,
        await reviewTransaction(deps, clientAuthOf(req), req.params.monitored_transaction_id, req.body),
      ),
  );

  r.get(
    '/monitoring/policy',
    {
      config: { permission: 'monitoring.read' },
      schema: { tags, summary: 'The current monitoring policy', response: { 200: PolicySchema } },
    },
    async (req) => getPolicy(deps, clientAuthOf(req).clientId),
  );

  r.put(
    '/monitoring/policy',
    {
      config: { permission: 'monitoring.policy.write' },
      schema: {
        tags,
        summary: 'Replace the monitoring policy',
        description: 'The whole policy; `version` + 1. A bad rule is 422 with `loc` at the rule.',
        body: PolicyInputSchema,
        response: { 200: PolicySchema, 403: ErrorSchema },
      },
    },
    async (req) => replacePolicy(deps, clientAuthOf(req), req.body),
  );

  r.post(
    '/monitoring/policy/test',
    {
      config: { permission: 'monitoring.read' },
      schema: {
        tags,
        summary: 'Test a policy on one transaction',
        description: 'Default: the current policy. Nothing is stored and no event is sent.',
        body: TestBodySchema,
        response: { 200: TestResultSchema, 404: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (req) => testPolicy(deps, clientAuthOf(req).clientId, req.body),
  );

  r.post(
    '/monitoring/policy/backtest',
    {
      config: { permission: 'monitoring.read' },
      schema: {
        tags,
        summary: 'Replay a candidate policy over the last 90 days',
        description:
          'Counts per decision and the records whose decision would change (at most the newest 5000 records are ' +
          'replayed; `truncated` says when more existed). Nothing is stored and no event is sent.',
        body: BacktestBodySchema,
        response: { 200: BacktestResultSchema, 404: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (req) => backtestPolicy(deps, clientAuthOf(req).clientId, req.body),
  );

  r.post(
    '/sandbox/monitoring/transactions/:monitored_transaction_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Submit or expire a pending remediation now (sandbox only; 404 in production)',
        params: IdParams,
        body: SimulateBodySchema,
        response: { 200: MonitoredTransactionSchema, 400: ErrorSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      withActions(
        req,
        await simulateRemediation(
          deps,
          clientAuthOf(req),
          req.params.monitored_transaction_id,
          req.body.action,
        ),
      ),
  );
}
