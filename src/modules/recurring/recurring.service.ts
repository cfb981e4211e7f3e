/** Recurring payments: reads, PATCH, pause/resume/cancel, on-demand runs, skip. */
import { and, eq, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { type RecurringRunStatus, recurringRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { isoDate } from '../../platform/calendar';
import { runIdempotent } from '../../platform/idempotency';
import { compareAndSet } from '../../platform/machine';
import type { ClientAuth } from '../../plugins/auth';
import { badRequest, notFound, ValidationError } from '../../shared/errors';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { paymentAmountProblem } from '../../shared/payment-money';
import { recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { actorOf } from '../payments/paylink.service';
import { assertRecurringTransition, assertRecurringWritable } from './recurring.machine';
import { RecurringMessages } from './recurring.messages';
import {
  attemptsOf,
  type DefinitionFilters,
  type DefinitionRow,
  findDefinition,
  findDefinitionById,
  findRun,
  listDefinitions,
  listRuns,
} from './recurring.repo';
import {
  assertMoved,
  definitionTable,
  emitRunEvent,
  followNewCalendar,
  moveDefinition,
  moveRun,
  scheduleNextRun,
} from './recurring.transitions';
import { toDefinitionDto, toRunDto } from './recurring.view';
import { insertAttempt, launchAttempt, mandateChargeable, withinLimits } from './recurring-attempts.service';
import { type CreateRecurringBody, decimalLte, scheduleIssues } from './recurring-create.service';

/** next_run_at of each definition: its scheduled run's time, or the earliest due retry. */
async function nextRunAtOf(db: DbOrTx, ids: string[]): Promise<Map<string, Date>> {
  if (ids.length === 0) return new Map();
  const res = await db.execute(sql`
    select definition_id, min(case when status = 'scheduled' then scheduled_for else next_retry_at end) as at
      from recurring_runs
     where definition_id in (${sql.join(
       ids.map((i) => sql`${i}::uuid`),
       sql`, `,
     )})
       and status in ('scheduled', 'retry_scheduled')
     group by definition_id`);
  return new Map(
    rowsOf<{ definition_id: string; at: string | Date | null }>(res)
      .filter((r) => r.at !== null)
      .map((r) => [r.definition_id, new Date(r.at!)]),
  );
}

export async function definitionDto(deps: Deps, d: DefinitionRow) {
  const next = await nextRunAtOf(deps.db, [d.id]);
  return toDefinitionDto(d, deps.config.publicUrl, next.get(d.id) ?? null);
}

export async function loadDefinition(deps: Deps, clientId: string, id: string): Promise<DefinitionRow> {
  const d = await findDefinition(deps.db, clientId, id);
  if (!d) throw notFound(RecurringMessages.notFound);
  return d;
}

/** What the `allowed_actions` of this recurring payment's runs depend on: its status and its mandate now. */
export async function runActionContext(deps: Deps, clientId: string, id: string) {
  const d = await loadDefinition(deps, clientId, id);
  return { status: d.status, chargeable: mandateChargeable(d, deps.clock.now()) };
}

export async function getRecurring(deps: Deps, clientId: string, id: string) {
  return definitionDto(deps, await loadDefinition(deps, clientId, id));
}

export async function listRecurring(deps: Deps, clientId: string, f: DefinitionFilters, page: PageParams) {
  const { rows, total } = await listDefinitions(deps.db, clientId, f, page);
  const next = await nextRunAtOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return {
    recurring_payments: rows.map((d) => toDefinitionDto(d, deps.config.publicUrl, next.get(d.id) ?? null)),
    pagination: paginationMeta(total, page),
  };
}

/** Locks the client's definition in `tx` (404 when it is not theirs). */
async function lockDefinition(tx: DbOrTx, clientId: string, id: string): Promise<DefinitionRow> {
  const d = await findDefinitionById(tx, id, true);
  if (!d || d.clientId !== clientId) throw notFound(RecurringMessages.notFound);
  return d;
}

export type PatchRecurringBody = Partial<
  Pick<CreateRecurringBody, 'amount' | 'schedule' | 'retry_policy' | 'metadata'> & {
    description: string | null;
  }
>;

export async function patchRecurring(deps: Deps, auth: ClientAuth, id: string, body: PatchRecurringBody) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const now = deps.clock.now();
  const d = await deps.db.transaction(async (tx) => {
    const cur = await lockDefinition(tx, auth.clientId, id);
    assertRecurringWritable(cur.status);
    const set: Partial<DefinitionRow> = { updatedAt: now };
    const issues = [];
    if (body.amount !== undefined) {
      const n = paymentAmountProblem(deps.config, body.amount, cur.currency);
      if (typeof n === 'string') issues.push({ loc: ['body', 'amount'], msg: n, type: 'value_error' });
      else if (!decimalLte(n.value, cur.maxAmountPerPayment))
        throw badRequest(RecurringMessages.exceedsLimits);
      else set.amount = n.value;
    }
    if (body.schedule !== undefined) {
      issues.push(...scheduleIssues(body.schedule, isoDate(now), ['body', 'schedule']));
      if (body.amount === undefined && cur.amount === null)
        issues.push({
          loc: ['body', 'amount'],
          msg: RecurringMessages.amountRequiredWithSchedule,
          type: 'value_error',
        });
      set.schedule = body.schedule;
    }
    if (issues.length > 0) throw new ValidationError(issues);
    if (body.description !== undefined) set.description = body.description;
    if (body.metadata !== undefined) set.metadata = body.metadata;
    if (body.retry_policy !== undefined)
      set.retryPolicy = {
        auto_retry: body.retry_policy.auto_retry ?? cur.retryPolicy.auto_retry,
        retry_after_hours: body.retry_policy.retry_after_hours ?? cur.retryPolicy.retry_after_hours,
      };
    const moved = assertMoved(await compareAndSet(tx, definitionTable, cur, set));
    if (set.amount)
      await tx
        .update(recurringRuns)
        .set({ amount: set.amount, updatedAt: now })
        .where(and(eq(recurringRuns.definitionId, id), eq(recurringRuns.status, 'scheduled')));
    if (set.schedule !== undefined) await followNewCalendar(tx, moved, now);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'recurring_payment.updated',
      at: now,
      target: { type: 'recurring_payment', id, label: moved.description ?? moved.reference ?? id },
      changes: Object.fromEntries(
        Object.keys(body).map((k) => [k, { from: null, to: (body as Record<string, unknown>)[k] }]),
      ),
    });
    return (await findDefinitionById(tx, id))!;
  });
  return definitionDto(deps, d);
}

export async function pauseRecurring(deps: Deps, auth: ClientAuth, id: string, resumeAt?: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const now = deps.clock.now();
  const d = await deps.db.transaction(async (tx) => {
    const cur = await lockDefinition(tx, auth.clientId, id);
    assertRecurringTransition('pause', cur.status);
    let until: Date | null = null;
    if (resumeAt !== undefined) {
      until = new Date(resumeAt);
      if (Number.isNaN(until.getTime()) || until <= now)
        throw new ValidationError([
          { loc: ['body', 'resume_at'], msg: RecurringMessages.resumeAtInPast, type: 'value_error' },
        ]);
    }
    return assertMoved(await moveDefinition(tx, cur, 'pause', now, actorOf(auth), { pausedUntil: until }));
  });
  return definitionDto(deps, d);
}

/** paused -> active (POST …/resume or resume_at reached); an ended calendar completes. */
export async function resumeDefinition(
  tx: Parameters<typeof moveDefinition>[0],
  cur: DefinitionRow,
  now: Date,
  actor: Parameters<typeof moveDefinition>[4],
) {
  const moved = assertMoved(await moveDefinition(tx, cur, 'resume', now, actor));
  await scheduleNextRun(tx, moved, now);
  return moved;
}

export async function resumeRecurring(deps: Deps, auth: ClientAuth, id: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const cur = await lockDefinition(tx, auth.clientId, id);
    assertRecurringTransition('resume', cur.status);
    await resumeDefinition(tx, cur, now, actorOf(auth));
  });
  return getRecurring(deps, auth.clientId, id);
}

export async function cancelRecurring(deps: Deps, auth: ClientAuth, id: string, reason?: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const cur = await lockDefinition(tx, auth.clientId, id);
    assertRecurringTransition('cancel', cur.status);
    assertMoved(
      await moveDefinition(tx, cur, 'cancel', now, actorOf(auth), {
        statusReason: reason ?? 'canceled_by_merchant',
        ...(cur.status === 'pending_authorization' ? { mandateStatus: 'revoked' } : {}),
      }),
    );
  });
  return getRecurring(deps, auth.clientId, id);
}

/** POST …/runs: an on-demand run with attempt 1, launched right away. */
export async function createOnDemandRun(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  header: string | string[] | undefined,
  body: { amount: string; description?: string },
) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const res = await runIdempotent(
    deps,
    {
      clientId: auth.clientId,
      scope: `recurring_payments.runs:${id}`,
      header,
      required: true,
      payload: body,
    },
    async (commit) => {
      const now = deps.clock.now();
      const out = await deps.db.transaction(async (tx) => {
        const d = await lockDefinition(tx, auth.clientId, id);
        assertRecurringWritable(d.status);
        if (!mandateChargeable(d, now)) throw badRequest(RecurringMessages.mandateNotAuthorized);
        if (d.status !== 'active') throw badRequest(RecurringMessages.actionNotAllowed(d.status));
        const n = paymentAmountProblem(deps.config, body.amount, d.currency);
        if (typeof n === 'string')
          throw new ValidationError([{ loc: ['body', 'amount'], msg: n, type: 'value_error' }]);
        if (!(await withinLimits(tx, d, null, n.value, now)))
          throw badRequest(RecurringMessages.exceedsLimits);
        const [run] = await tx
          .insert(recurringRuns)
          .values({
            definitionId: d.id,
            clientId: d.clientId,
            sequence: d.runsCount + 1,
            kind: 'on_demand',
            scheduledFor: now,
            amount: n.value,
            currency: d.currency,
            description: body.description ?? d.description,
            status: 'processing',
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await tx.execute(
          sql`update recurring_payments set runs_count = runs_count + 1 where id = ${d.id}::uuid`,
        );
        const a = (await insertAttempt(tx, run!.id, 1, 'on_demand', null, now))!;
        await emitRunEvent(tx, run!, null, now);
        await recordActivity(tx, {
          clientId: d.clientId,
          action: 'recurring_run.created',
          at: now,
          target: {
            type: 'recurring_run',
            id: run!.id,
            label: `#${run!.sequence} ${run!.amount} ${run!.currency}`,
          },
          metadata: { definition_id: d.id, kind: 'on_demand' },
        });
        const dto = toRunDto(run!, [a]);
        await commit(tx, dto, 202);
        return { dto, attemptId: a.id };
      });
      await launchAttempt(deps, out.attemptId, actorOf(auth));
      return { body: out.dto, status: 202 };
    },
  );
  if (res.replayed) return { status: 200 as const, body: res.body };
  return { status: 202 as const, body: await getRun(deps, auth.clientId, id, res.body.run_id) };
}

export async function listDefinitionRuns(
  deps: Deps,
  clientId: string,
  id: string,
  status: RecurringRunStatus | undefined,
  page: PageParams,
) {
  await loadDefinition(deps, clientId, id);
  const { rows, total } = await listRuns(deps.db, id, status, page);
  const attempts = await attemptsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return { runs: rows.map((r) => toRunDto(r, attempts)), pagination: paginationMeta(total, page) };
}

export async function getRun(deps: Deps, clientId: string, id: string, runId: string) {
  await loadDefinition(deps, clientId, id);
  const r = await findRun(deps.db, id, runId);
  if (!r) throw notFound(RecurringMessages.runNotFound);
  return toRunDto(r, await attemptsOf(deps.db, [r.id]));
}

export async function skipRun(deps: Deps, auth: ClientAuth, id: string, runId: string) {
  await assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'recurring_payments');
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const d = await lockDefinition(tx, auth.clientId, id);
    const r = await findRun(tx, id, runId, true);
    if (!r) throw notFound(RecurringMessages.runNotFound);
    assertRecurringWritable(d.status);
    assertMoved(await moveRun(tx, d, r, 'skip', now));
  });
  return getRun(deps, auth.clientId, id, runId);
}
