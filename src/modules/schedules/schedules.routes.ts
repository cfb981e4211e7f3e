/** /payment-schedules: thin routes over the schedules services (schedules.read / schedules.write). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { actionViewer, clientAuthOf } from '../../plugins/auth';
import { toPageParams } from '../../shared/pagination';
import { ErrorSchema } from '../payments/payments.schemas';
import { withScheduleActions } from './schedules.actions';
import {
  CancelScheduleBodySchema,
  CreateScheduleBodySchema,
  IdemHeadersSchema,
  InstalmentParamsSchema,
  PatchInstalmentBodySchema,
  PatchScheduleBodySchema,
  ScheduleListQuerySchema,
  ScheduleListSchema,
  ScheduleParamsSchema,
  ScheduleSchema,
  SimulateInstalmentBodySchema,
} from './schedules.schemas';
import {
  cancelInstalment,
  cancelSchedule,
  getSchedule,
  issueInstalmentNow,
  listClientSchedules,
  patchInstalment,
  patchSchedule,
  simulateInstalmentOverdue,
} from './schedules.service';
import type { ScheduleDto } from './schedules.view';
import { createSchedule } from './schedules-create.service';

const TAGS = ['payment schedules'];
const ok = { 200: ScheduleSchema, 400: ErrorSchema };

export async function schedulesRoutes(app: FastifyInstance, opts: { deps: Deps }) {
  const { deps } = opts;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const withActions = (request: Parameters<typeof clientAuthOf>[0], dto: ScheduleDto) =>
    withScheduleActions(dto, actionViewer(deps, clientAuthOf(request)));

  r.post(
    '/payment-schedules',
    {
      config: { permission: 'schedules.write', idempotency: 'required' },
      schema: {
        tags: TAGS,
        summary: 'Create a payment schedule',
        description:
          'Requires `X-Idempotency-Key`. Exactly one of `instalments` or `plan`. Each instalment is paid through a ' +
          'payment link issued at `issue_at` (due_date - issue_days_before).',
        headers: IdemHeadersSchema,
        body: CreateScheduleBodySchema,
        response: { 200: ScheduleSchema, 201: ScheduleSchema, 409: ErrorSchema },
      },
    },
    async (request, reply) => {
      const res = await createSchedule(
        deps,
        clientAuthOf(request),
        request.headers['x-idempotency-key'],
        request.body,
      );
      return reply.code(res.status as 201).send(withActions(request, res.body));
    },
  );

  r.get(
    '/payment-schedules',
    {
      config: { permission: 'schedules.read' },
      schema: {
        tags: TAGS,
        summary: 'List payment schedules',
        querystring: ScheduleListQuerySchema,
        response: { 200: ScheduleListSchema },
      },
    },
    async (request) => {
      const q = request.query;
      const list = await listClientSchedules(
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
      return { ...list, payment_schedules: list.payment_schedules.map((s) => withActions(request, s)) };
    },
  );

  r.get(
    '/payment-schedules/:schedule_id',
    {
      config: { permission: 'schedules.read' },
      schema: {
        tags: TAGS,
        summary: 'Get a payment schedule',
        params: ScheduleParamsSchema,
        response: { 200: ScheduleSchema },
      },
    },
    async (request) =>
      withActions(
        request,
        await getSchedule(deps, clientAuthOf(request).clientId, request.params.schedule_id),
      ),
  );

  r.patch(
    '/payment-schedules/:schedule_id',
    {
      config: { permission: 'schedules.write' },
      schema: {
        tags: TAGS,
        summary: 'Change description, delivery, reminders or metadata',
        params: ScheduleParamsSchema,
        body: PatchScheduleBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await patchSchedule(deps, clientAuthOf(request), request.params.schedule_id, request.body),
      ),
  );

  r.post(
    '/payment-schedules/:schedule_id/cancel',
    {
      config: { permission: 'schedules.write' },
      schema: {
        tags: TAGS,
        summary: 'Cancel a payment schedule',
        description:
          'Open instalments are canceled (their pending intents too); paid instalments keep their status.',
        params: ScheduleParamsSchema,
        body: CancelScheduleBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await cancelSchedule(
          deps,
          clientAuthOf(request),
          request.params.schedule_id,
          request.body?.reason ?? null,
        ),
      ),
  );

  r.patch(
    '/payment-schedules/:schedule_id/instalments/:instalment_id',
    {
      config: { permission: 'schedules.write' },
      schema: {
        tags: TAGS,
        summary: 'Change the amount or due date of a scheduled instalment',
        params: InstalmentParamsSchema,
        body: PatchInstalmentBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await patchInstalment(
          deps,
          clientAuthOf(request),
          request.params.schedule_id,
          request.params.instalment_id,
          request.body,
        ),
      ),
  );

  for (const [verb, summary] of [
    ['issue-now', 'Issue the payment link of a scheduled instalment now'],
    [
      'reissue',
      'Issue a new payment link (overdue, or issued with a finished link); counts against the maximum',
    ],
    ['cancel', 'Cancel an instalment (its pending intent too)'],
  ] as const) {
    r.post(
      `/payment-schedules/:schedule_id/instalments/:instalment_id/${verb}`,
      {
        config: { permission: 'schedules.write', bodyless: true },
        schema: { tags: TAGS, summary, params: InstalmentParamsSchema, response: ok },
      },
      async (request) => {
        const auth = clientAuthOf(request);
        const { schedule_id, instalment_id } = request.params;
        const dto =
          verb === 'cancel'
            ? await cancelInstalment(deps, auth, schedule_id, instalment_id)
            : await issueInstalmentNow(
                deps,
                auth,
                schedule_id,
                instalment_id,
                verb === 'issue-now' ? 'issue' : 'reissue',
              );
        return withActions(request, dto);
      },
    );
  }

  r.post(
    '/sandbox/payment-schedules/:schedule_id/instalments/:instalment_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Make an issued instalment overdue now (sandbox only; 404 in production)',
        params: InstalmentParamsSchema,
        body: SimulateInstalmentBodySchema,
        response: ok,
      },
    },
    async (request) =>
      withActions(
        request,
        await simulateInstalmentOverdue(
          deps,
          clientAuthOf(request),
          request.params.schedule_id,
          request.params.instalment_id,
        ),
      ),
  );
}
