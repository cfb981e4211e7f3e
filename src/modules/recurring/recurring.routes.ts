/** /recurring-payments: thin routes over the recurring services (recurring.read / recurring.write). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import { ErrorSchema } from '../payments/payments.schemas';
import { type RunActionRow, withRecurringActions, withRunActions } from './recurring.actions';
import {
  CancelBodySchema,
  CreateRecurringBodySchema,
  DefinitionParamsSchema,
  IdemHeadersSchema,
  OnDemandRunBodySchema,
  PatchRecurringBodySchema,
  PauseBodySchema,
  RecurringListQuerySchema,
  RecurringListSchema,
  RecurringSchema,
  RetryBodySchema,
  RunListQuerySchema,
  RunListSchema,
  RunParamsSchema,
  RunSchema,
  SimulateMandateBodySchema,
} from './recurring.schemas';
import {
  cancelRecurring,
  createOnDemandRun,
  getRecurring,
  getRun,
  listDefinitionRuns,
  listRecurring,
  patchRecurring,
  pauseRecurring,
  resumeRecurring,
  runActionContext,
  skipRun,
} from './recurring.service';
import { createRecurring } from './recurring-create.service';
import { retryRun } from './recurring-retry.service';
import { runNext, simulateRecurring } from './recurring-sandbox.service';

const TAGS = ['recurring payments'];
const ok = { 200: RecurringSchema, 400: ErrorSchema };
const W = { permission: 'recurring.write', errors: [400, 409] } as const;
const WB = { ...W, bodyless: true } as const;

export async function recurringRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const withActions = <V extends Parameters<typeof withRecurringActions>[0]>(
    request: Parameters<typeof clientAuthOf>[0],
    dto: V,
  ) => withRecurringActions(dto, actionViewer(deps, clientAuthOf(request)));
  /** Runs of one recurring payment with the caller's actions on each (their payment read once). */
  const withRunsActions = async <V extends RunActionRow['run']>(
    request: Parameters<typeof clientAuthOf>[0],
    definitionId: string,
    runs: V[],
  ) => {
    const auth = clientAuthOf(request);
    const d = await runActionContext(deps, auth.clientId, definitionId);
    const viewer = actionViewer(deps, auth);
    return runs.map((run) => withRunActions(run, viewer, d, deps.config.recurringMaxAttempts));
  };
  const withRunActionsOne = async <V extends RunActionRow['run']>(
    request: Parameters<typeof clientAuthOf>[0],
    definitionId: string,
    run: V,
  ) => (await withRunsActions(request, definitionId, [run]))[0]!;

  r.post(
    '/recurring-payments',
    {
      config: { permission: 'recurring.write', idempotency: 'required', errors: [400, 409] },
      schema: {
        tags: TAGS,
        summary: 'Create a recurring payment (VRP mandate + optional schedule)',
        description:
          'Requires `X-Idempotency-Key`. Answers `pending_authorization` with `authorization_url`: the payer ' +
          'authorizes the mandate at their bank through the hosted page `/checkout/mandate/{token}`.',
        headers: IdemHeadersSchema,
        body: CreateRecurringBodySchema,
        response: { 200: RecurringSchema, 201: RecurringSchema, 400: ErrorSchema },
      },
    },
    async (request, reply) => {
      const res = await createRecurring(
        deps,
        clientAuthOf(request),
        request.headers['x-idempotency-key'],
        request.body,
      );
      return reply.code(res.status as 201).send(withActions(request, res.body));
    },
  );

  r.get(
    '/recurring-payments',
    {
      config: { permission: 'recurring.read' },
      schema: {
        tags: TAGS,
        summary: 'List recurring payments',
        querystring: RecurringListQuerySchema,
        response: { 200: RecurringListSchema },
      },
    },
    async (request) => {
      const q = request.query;
      const list = await listRecurring(
        deps,
        clientAuthOf(request).clientId,
        {
          status: q.status,
          projectId: q.project_id,
          userId: q.user_id,
          businessCustomerId: q.business_customer_id,
        },
        toPageParams(q, 20),
      );
      return { ...list, recurring_payments: list.recurring_payments.map((d) => withActions(request, d)) };
    },
  );

  r.get(
    '/recurring-payments/:definition_id',
    {
      config: { permission: 'recurring.read' },
      schema: {
        tags: TAGS,
        summary: 'Get a recurring payment',
        params: DefinitionParamsSchema,
        response: { 200: RecurringSchema },
      },
    },
    async (request) =>
      withActions(
        request,
        await getRecurring(deps, clientAuthOf(request).clientId, request.params.definition_id),
      ),
  );

  r.patch(
    '/recurring-payments/:definition_id',
    {
      config: W,
      schema: {
        tags: TAGS,
        summary: 'Change amount (within the mandate), schedule, description, retry policy or metadata',
        params: DefinitionParamsSchema,
        body: PatchRecurringBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await patchRecurring(deps, clientAuthOf(request), request.params.definition_id, request.body),
      ),
  );

  r.post(
    '/recurring-payments/:definition_id/pause',
    {
      config: W,
      schema: {
        tags: TAGS,
        summary: 'Pause (runs that fall due are skipped)',
        params: DefinitionParamsSchema,
        body: PauseBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await pauseRecurring(
          deps,
          clientAuthOf(request),
          request.params.definition_id,
          request.body?.resume_at,
        ),
      ),
  );

  r.post(
    '/recurring-payments/:definition_id/resume',
    {
      config: WB,
      schema: {
        tags: TAGS,
        summary: 'Resume a paused recurring payment',
        params: DefinitionParamsSchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(request, await resumeRecurring(deps, clientAuthOf(request), request.params.definition_id)),
  );

  r.post(
    '/recurring-payments/:definition_id/cancel',
    {
      config: W,
      schema: {
        tags: TAGS,
        summary: 'Cancel: open runs are canceled and the mandate is revoked at the bank',
        params: DefinitionParamsSchema,
        body: CancelBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await cancelRecurring(
          deps,
          clientAuthOf(request),
          request.params.definition_id,
          request.body?.reason,
        ),
      ),
  );

  r.post(
    '/recurring-payments/:definition_id/runs',
    {
      config: { permission: 'recurring.write', idempotency: 'required', errors: [400, 409] },
      schema: {
        tags: TAGS,
        summary: 'Collect now (on-demand run; variable VRP)',
        params: DefinitionParamsSchema,
        headers: IdemHeadersSchema,
        body: OnDemandRunBodySchema,
        response: { 200: RunSchema, 202: RunSchema, 400: ErrorSchema },
      },
    },
    async (request, reply) => {
      const res = await createOnDemandRun(
        deps,
        clientAuthOf(request),
        request.params.definition_id,
        request.headers['x-idempotency-key'],
        request.body,
      );
      const body = await withRunActionsOne(request, request.params.definition_id, res.body);
      return reply.code(res.status as 202).send(body);
    },
  );

  r.get(
    '/recurring-payments/:definition_id/runs',
    {
      config: { permission: 'recurring.read' },
      schema: {
        tags: TAGS,
        summary: 'List runs',
        params: DefinitionParamsSchema,
        querystring: RunListQuerySchema,
        response: { 200: RunListSchema },
      },
    },
    async (request) => {
      const page = await listDefinitionRuns(
        deps,
        clientAuthOf(request).clientId,
        request.params.definition_id,
        request.query.status,
        toPageParams(request.query, 20),
      );
      return { ...page, runs: await withRunsActions(request, request.params.definition_id, page.runs) };
    },
  );

  r.get(
    '/recurring-payments/:definition_id/runs/:run_id',
    {
      config: { permission: 'recurring.read' },
      schema: {
        tags: TAGS,
        summary: 'Get a run with its attempts',
        params: RunParamsSchema,
        response: { 200: RunSchema },
      },
    },
    async (request) =>
      withRunActionsOne(
        request,
        request.params.definition_id,
        await getRun(
          deps,
          clientAuthOf(request).clientId,
          request.params.definition_id,
          request.params.run_id,
        ),
      ),
  );

  r.post(
    '/recurring-payments/:definition_id/runs/:run_id/skip',
    {
      config: WB,
      schema: {
        tags: TAGS,
        summary: 'Skip a scheduled run',
        params: RunParamsSchema,
        response: { 200: RunSchema, 400: ErrorSchema },
      },
    },
    async (request) =>
      withRunActionsOne(
        request,
        request.params.definition_id,
        await skipRun(deps, clientAuthOf(request), request.params.definition_id, request.params.run_id),
      ),
  );

  r.post(
    '/recurring-payments/:definition_id/retry',
    {
      config: { permission: 'recurring.write', idempotency: 'optional', errors: [400, 409] },
      schema: {
        tags: TAGS,
        summary: 'Retry a failed run (idempotent for the same failed run)',
        description:
          'Without `run_id`, the most recent `failed` or `retry_scheduled` run. 202 with `replayed: false` when a new ' +
          'attempt was made; 200 with `replayed: true` when an earlier call already retried the same failure.',
        params: DefinitionParamsSchema,
        headers: IdemHeadersSchema,
        body: RetryBodySchema,
        response: { 200: RunSchema, 202: RunSchema, 400: ErrorSchema },
      },
    },
    async (request, reply) => {
      const res = await retryRun(
        deps,
        clientAuthOf(request),
        request.params.definition_id,
        request.headers['x-idempotency-key'],
        request.body ?? {},
      );
      const body = await withRunActionsOne(request, request.params.definition_id, res.body);
      return reply.code(res.status).send(body);
    },
  );

  r.post(
    '/sandbox/recurring-payments/:definition_id/simulate',
    {
      config: { permission: 'sandbox.simulate', errors: [400, 503] },
      schema: {
        tags: ['sandbox'],
        summary: 'Make the sandbox bank report a mandate event (sandbox only; 404 in production)',
        params: DefinitionParamsSchema,
        body: SimulateMandateBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await simulateRecurring(
          deps,
          clientAuthOf(request),
          request.params.definition_id,
          request.body.action,
        ),
      ),
  );

  r.post(
    '/sandbox/recurring-payments/:definition_id/run-next',
    {
      config: { permission: 'sandbox.simulate', errors: [400, 409], bodyless: true },
      schema: {
        tags: ['sandbox'],
        summary: 'Start the next scheduled run, or a due retry, now (sandbox only; 404 in production)',
        params: DefinitionParamsSchema,
        response: { 200: RunSchema, 400: ErrorSchema },
      },
    },
    async (request) =>
      withRunActionsOne(
        request,
        request.params.definition_id,
        await runNext(deps, clientAuthOf(request), request.params.definition_id),
      ),
  );
}
