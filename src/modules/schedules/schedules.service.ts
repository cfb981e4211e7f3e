/**
 * Payment schedules: reads, PATCH of the schedule and of a scheduled instalment, cancel (schedule
 * or instalment), issue-now, reissue, and the sandbox overdue simulation. Every write checks the
 * `payment_schedules` feature switch and commits its changes, events and activity entry together.
 */
import { and, eq, sql } from 'drizzle-orm';
import { paymentScheduleInstalments, paymentSchedules } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { isIsoDate, isoDate } from '../../platform/calendar';
import type { ClientAuth } from '../../plugins/auth';
import { badRequest, notFound, ValidationError } from '../../shared/errors';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { diffChanges, recordActivity } from '../activity/activity-writer.service';
import { assertFeatureEnabled } from '../features/features.service';
import { actorOf } from '../payments/paylink.service';
import { isTerminal } from '../payments/payments.machine';
import { findTransactionById } from '../payments/payments.repo';
import { cancelIntentsNow, markOverdue } from './schedules.jobs';
import {
  assertInstalmentEditable,
  assertInstalmentTransition,
  assertScheduleWritable,
} from './schedules.machine';
import { ScheduleMessages } from './schedules.messages';
import {
  findSchedule,
  type InstalmentRow,
  instalmentsOf,
  listSchedules,
  type ScheduleFilters,
  type ScheduleRow,
} from './schedules.repo';
import { moveInstalment, syncInstalmentTimers, syncSchedule } from './schedules.transitions';
import { type ScheduleDto, toScheduleDto } from './schedules.view';
import { checkAmount } from './schedules-create.service';
import { issueInstalment } from './schedules-issue.service';
import { graceEndOf, issueAtOf } from './schedules-money.policy';

async function requireSchedule(deps: Pick<Deps, 'db'>, clientId: string, id: string): Promise<ScheduleRow> {
  const s = await findSchedule(deps.db, clientId, id);
  if (!s) throw notFound(ScheduleMessages.scheduleNotFound);
  return s;
}

async function requireInstalment(
  deps: Pick<Deps, 'db'>,
  s: ScheduleRow,
  instalmentId: string,
): Promise<InstalmentRow> {
  const [i] = await deps.db
    .select()
    .from(paymentScheduleInstalments)
    .where(
      and(eq(paymentScheduleInstalments.id, instalmentId), eq(paymentScheduleInstalments.scheduleId, s.id)),
    );
  if (!i) throw notFound(ScheduleMessages.instalmentNotFound);
  return i;
}

async function scheduleDto(deps: Pick<Deps, 'db'>, clientId: string, id: string): Promise<ScheduleDto> {
  const s = await requireSchedule(deps, clientId, id);
  return toScheduleDto(s, await instalmentsOf(deps.db, [s.id]));
}

const writeGate = (deps: Deps, auth: ClientAuth) =>
  assertFeatureEnabled(deps.db, deps.config.environment, auth.clientId, 'payment_schedules');

export const getSchedule = (deps: Pick<Deps, 'db'>, clientId: string, id: string) =>
  scheduleDto(deps, clientId, id);

export async function listClientSchedules(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  f: ScheduleFilters,
  page: PageParams,
) {
  const { rows, total } = await listSchedules(deps.db, clientId, f, page);
  const instalments = await instalmentsOf(
    deps.db,
    rows.map((r) => r.id),
  );
  return {
    payment_schedules: rows.map((s) =>
      toScheduleDto(
        s,
        instalments.filter((i) => i.scheduleId === s.id),
      ),
    ),
    pagination: paginationMeta(total, page),
  };
}

export interface PatchScheduleBody {
  description?: string | null;
  delivery?: 'email' | 'none';
  reminders?: boolean;
  metadata?: Record<string, string>;
}

export async function patchSchedule(deps: Deps, auth: ClientAuth, id: string, body: PatchScheduleBody) {
  await writeGate(deps, auth);
  const s = await requireSchedule(deps, auth.clientId, id);
  assertScheduleWritable(s.status);
  const now = deps.clock.now();
  const set = {
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.delivery !== undefined ? { delivery: body.delivery } : {}),
    ...(body.reminders !== undefined ? { reminders: body.reminders } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
  };
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(paymentSchedules)
      .set({ ...set, updatedAt: now })
      .where(and(eq(paymentSchedules.id, s.id), sql`${paymentSchedules.status} in ('active', 'past_due')`))
      .returning();
    if (!row)
      throw badRequest(
        ScheduleMessages.scheduleTerminal((await requireSchedule(deps, auth.clientId, id)).status),
      );
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'payment_schedule.updated',
      at: now,
      target: { type: 'payment_schedule', id: s.id, label: `${s.totalAmount} ${s.currency}` },
      changes: diffChanges(
        { description: s.description, delivery: s.delivery, reminders: s.reminders, metadata: s.metadata },
        {
          description: row.description,
          delivery: row.delivery,
          reminders: row.reminders,
          metadata: row.metadata,
        },
      ),
    });
  });
  return scheduleDto(deps, auth.clientId, id);
}

/** POST …/cancel: every open instalment -> canceled (paid ones keep their status), schedule -> canceled. */
export async function cancelSchedule(deps: Deps, auth: ClientAuth, id: string, reason: string | null) {
  await writeGate(deps, auth);
  const s = await requireSchedule(deps, auth.clientId, id);
  assertScheduleWritable(s.status);
  const now = deps.clock.now();
  const canceled = await deps.db.transaction(async (tx) => {
    const locked = await syncScheduleLock(tx, s.id);
    assertScheduleWritable(locked.status);
    const ids: string[] = [];
    for (const i of await instalmentsOf(tx, [s.id])) {
      if (!['scheduled', 'issued', 'overdue'].includes(i.status)) continue;
      await moveInstalment(tx, locked, i, 'cancel', now, cancelSet(i, now));
      ids.push(i.id);
    }
    await syncSchedule(tx, s.id, now, { forced: 'cancel', set: { cancelReason: reason } });
    return ids;
  });
  await cancelIntentsNow(deps, canceled);
  return scheduleDto(deps, auth.clientId, id);
}

async function syncScheduleLock(tx: Parameters<Parameters<Deps['db']['transaction']>[0]>[0], id: string) {
  const [row] = await tx.select().from(paymentSchedules).where(eq(paymentSchedules.id, id)).for('update');
  return row!;
}

const cancelSet = (i: InstalmentRow, now: Date): Partial<InstalmentRow> => ({
  issueDueAt: null,
  intentToCancel: i.transactionId,
  intentCancelDueAt: i.transactionId ? now : null,
});

export interface PatchInstalmentBody {
  amount?: string;
  due_date?: string;
}

/** PATCH an instalment (scheduled only): amount and/or due date; the schedule's total follows. */
export async function patchInstalment(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  instalmentId: string,
  body: PatchInstalmentBody,
) {
  await writeGate(deps, auth);
  const s = await requireSchedule(deps, auth.clientId, id);
  assertScheduleWritable(s.status);
  const i = await requireInstalment(deps, s, instalmentId);
  assertInstalmentEditable(i.status);
  const payer = {
    project_id: s.projectId,
    currency: s.currency,
    ...(s.userId ? { user_id: s.userId } : { business_customer_id: s.businessCustomerId! }),
  };
  let amount = i.amount;
  if (body.amount !== undefined) {
    const r = checkAmount(deps.config, payer, body.amount, ['body', 'amount']);
    if (r.issues.length > 0) throw new ValidationError(r.issues);
    amount = r.amount!;
  }
  const now = deps.clock.now();
  let dueDate = i.dueDate;
  if (body.due_date !== undefined) {
    const loc = ['body', 'due_date'];
    const all = await instalmentsOf(deps.db, [s.id]);
    const prev = all.find((x) => x.sequence === i.sequence - 1);
    const next = all.find((x) => x.sequence === i.sequence + 1);
    const bad = (msg: string) => new ValidationError([{ loc, msg, type: 'value_error' }]);
    if (!isIsoDate(body.due_date)) throw bad('Input should be a valid date');
    if (body.due_date < isoDate(now)) throw bad(ScheduleMessages.dueDateNotBeforeToday);
    if ((prev && body.due_date <= prev.dueDate) || (next && body.due_date >= next.dueDate))
      throw bad(ScheduleMessages.dueDateOrder);
    dueDate = body.due_date;
  }
  const issueAt = issueAtOf(dueDate, s.issueDaysBefore, now);
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(paymentScheduleInstalments)
      .set({
        amount,
        dueDate,
        issueAt,
        issueDueAt: issueAt,
        graceEndAt: graceEndOf(dueDate, s.graceDays),
        version: i.version + 1,
        updatedAt: now,
      })
      .where(
        and(
          eq(paymentScheduleInstalments.id, i.id),
          eq(paymentScheduleInstalments.status, 'scheduled'),
          eq(paymentScheduleInstalments.version, i.version),
        ),
      )
      .returning();
    if (!row)
      throw badRequest(
        ScheduleMessages.instalmentActionNotAllowed((await requireInstalment(deps, s, i.id)).status),
      );
    await syncInstalmentTimers(tx, now, [row]);
    await tx.execute(sql`
      update payment_schedules set total_amount =
        (select sum(amount) from payment_schedule_instalments where schedule_id = ${s.id}::uuid),
        updated_at = ${now.toISOString()}::timestamptz
       where id = ${s.id}::uuid`);
    await recordActivity(tx, {
      clientId: auth.clientId,
      action: 'payment_schedule.instalment_updated',
      at: now,
      target: { type: 'payment_schedule_instalment', id: i.id, label: `#${i.sequence}` },
      changes: diffChanges({ amount: i.amount, due_date: i.dueDate }, { amount, due_date: dueDate }),
      metadata: { schedule_id: s.id },
    });
  });
  return scheduleDto(deps, auth.clientId, id);
}

/** POST …/issue-now (scheduled) and …/reissue (overdue, or issued with a finished link): a new link now. */
export async function issueInstalmentNow(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  instalmentId: string,
  trigger: 'issue' | 'reissue',
) {
  await writeGate(deps, auth);
  const s = await requireSchedule(deps, auth.clientId, id);
  assertScheduleWritable(s.status);
  const i = await requireInstalment(deps, s, instalmentId);
  assertInstalmentTransition(trigger, i.status);
  if (trigger === 'reissue') {
    if (i.status === 'issued') {
      const t = i.transactionId ? await findTransactionById(deps.db, i.transactionId) : null;
      if (t && !isTerminal(t.status)) throw badRequest(ScheduleMessages.instalmentActionNotAllowed(i.status));
    }
    if (i.linkNumber >= s.maxLinks) throw badRequest(ScheduleMessages.noLinksLeft(s.maxLinks));
  }
  const out = await issueInstalment(deps, i.id, trigger, actorOf(auth));
  if (out.kind === 'failed') throw out.error;
  return scheduleDto(deps, auth.clientId, id);
}

/** POST …/instalments/{id}/cancel. */
export async function cancelInstalment(deps: Deps, auth: ClientAuth, id: string, instalmentId: string) {
  await writeGate(deps, auth);
  const s = await requireSchedule(deps, auth.clientId, id);
  assertScheduleWritable(s.status);
  const i = await requireInstalment(deps, s, instalmentId);
  assertInstalmentTransition('cancel', i.status);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const locked = await syncScheduleLock(tx, s.id);
    assertScheduleWritable(locked.status);
    const [current] = await tx
      .select()
      .from(paymentScheduleInstalments)
      .where(eq(paymentScheduleInstalments.id, i.id))
      .for('update');
    const moved = await moveInstalment(tx, locked, current!, 'cancel', now, cancelSet(current!, now));
    if (!moved) throw badRequest(ScheduleMessages.instalmentActionNotAllowed(current!.status));
    await syncSchedule(tx, s.id, now);
  });
  await cancelIntentsNow(deps, [i.id]);
  return scheduleDto(deps, auth.clientId, id);
}

/** Sandbox: the grace end of an issued instalment passes now (the worker's own overdue path). */
export async function simulateInstalmentOverdue(
  deps: Deps,
  auth: ClientAuth,
  id: string,
  instalmentId: string,
) {
  if (deps.config.environment !== 'sandbox') throw notFound(M.notFound);
  await writeGate(deps, auth);
  const s = await requireSchedule(deps, auth.clientId, id);
  assertScheduleWritable(s.status);
  const i = await requireInstalment(deps, s, instalmentId);
  assertInstalmentTransition('overdue', i.status);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(paymentScheduleInstalments)
      .where(eq(paymentScheduleInstalments.id, i.id))
      .for('update');
    assertInstalmentTransition('overdue', current!.status);
    await markOverdue(tx, current!, now);
  });
  await cancelIntentsNow(deps, [i.id]);
  return scheduleDto(deps, auth.clientId, id);
}
