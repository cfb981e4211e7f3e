/**
 * Persists what the two machines decide, in the caller's transaction: the compare-and-set, the event
 * (`recurring_payment.status_changed` / `recurring_payment.run.status_changed`), the activity entry,
 * the notifications (run failed; revoked or expired), and the consequences the tables name in "Also":
 * the first and next scheduled runs, open runs canceled, the mandate revoked at the bank (a timer).
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { recurringPayments, recurringRuns } from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import { machineTable, transition } from '../../platform/machine';
import { AppError } from '../../shared/errors';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import type { Actor } from '../payments/status.service';
import { canApplyRecurring, type RecurringTrigger, recurringMachine } from './recurring.machine';
import { RecurringMessages } from './recurring.messages';
import { type DefinitionRow, findDefinitionById, latestAttempt, type RunRow } from './recurring.repo';
import { nextSlot } from './recurring-schedule.policy';
import { isFinalRun, OPEN_RUN_STATUSES, type RunTrigger, runMachine } from './runs.machine';

/** Definitions move (and PATCH writes) by compare-and-set on (status, version). */
export const definitionTable = machineTable(recurringMachine, recurringPayments, {
  version: 'version',
  conflict: RecurringMessages.changedMeanwhile,
});
const runTable = machineTable(runMachine, recurringRuns, {
  version: 'version',
  conflict: RecurringMessages.changedMeanwhile,
});

export async function emitDefinitionEvent(
  tx: Tx,
  d: DefinitionRow,
  previous: string | null,
  actor: Actor,
  at: Date,
): Promise<void> {
  await emitEvent(tx, {
    clientId: d.clientId,
    type: 'recurring_payment.status_changed',
    data: {
      definition_id: d.id,
      previous_status: previous,
      current_status: d.status,
      status_reason: d.statusReason,
      project_id: d.projectId,
      user_id: d.userId,
      business_customer_id: d.businessCustomerId,
      actor_type: actor.actorType,
      actor_account_id: actor.actorAccountId,
    },
    occurredAt: at,
    dedupKey: `recurring_payment:${d.id}:v${d.version}`,
  });
}

export async function emitRunEvent(tx: Tx, r: RunRow, previous: string | null, at: Date): Promise<void> {
  const a = await latestAttempt(tx, r.id);
  await emitEvent(tx, {
    clientId: r.clientId,
    type: 'recurring_payment.run.status_changed',
    data: {
      definition_id: r.definitionId,
      run_id: r.id,
      sequence: r.sequence,
      kind: r.kind,
      amount: r.amount,
      currency: r.currency,
      transaction_id: r.transactionId,
      attempt_number: a?.attemptNumber ?? null,
      previous_status: previous,
      current_status: r.status,
      failure_reason: r.failureReason,
      will_retry: r.willRetry,
      next_retry_at: r.nextRetryAt ? r.nextRetryAt.toISOString() : null,
    },
    occurredAt: at,
    dedupKey: `recurring_payment.run:${r.id}:v${r.version}`,
  });
}

/**
 * Applies a definition trigger (400 when the table refuses it) with the extra columns `set`; null when
 * a concurrent writer moved the row first. The caller holds the definition's row lock when it matters.
 */
export function moveDefinition(
  tx: Tx,
  d: DefinitionRow,
  trigger: RecurringTrigger,
  at: Date,
  actor: Actor,
  set: Partial<DefinitionRow> = {},
): Promise<DefinitionRow | null> {
  const revokeAtBank = (trigger === 'cancel' || trigger === 'complete') && d.mandateRef !== null;
  return transition(tx, definitionTable, d, trigger, {
    set: ({ to }) => ({
      statusReason: null,
      ...set,
      updatedAt: at,
      ...(trigger === 'cancel' ? { canceledAt: at } : {}),
      ...(revokeAtBank ? { mandateRevokeDueAt: at, mandateStatus: 'revoked' as const } : {}),
      ...(to !== 'paused' ? { pausedUntil: null } : {}),
    }),
    lost: 'null',
    event: (moved, { from }) => emitDefinitionEvent(tx, moved, from, actor, at),
    activity: (moved, { from, to }) =>
      recordActivity(tx, {
        clientId: d.clientId,
        action: `recurring_payment.${trigger === 'authorize' ? 'activated' : to}`,
        at,
        target: { type: 'recurring_payment', id: d.id, label: d.description ?? d.reference ?? d.id },
        changes: { status: { from, to } },
        metadata: moved.statusReason ? { status_reason: moved.statusReason } : undefined,
      }),
    notify: async (_moved, { to }) => {
      if (to !== 'revoked' && to !== 'expired') return;
      await notify(tx, {
        clientId: d.clientId,
        category: 'recurring_payments',
        severity: 'warning',
        title: to === 'revoked' ? 'Recurring payment mandate revoked' : 'Recurring payment expired',
        body: `Recurring payment ${d.description ?? d.id} is now ${to}.`,
        item: { type: 'recurring_payment', id: d.id },
        audience: { roles: OWNER_AND_OPERATIONS },
        at,
      });
    },
    after: async (moved, { to }) => {
      if (to === 'canceled' || to === 'revoked' || to === 'expired') {
        const open = await tx
          .select()
          .from(recurringRuns)
          .where(
            and(eq(recurringRuns.definitionId, d.id), inArray(recurringRuns.status, [...OPEN_RUN_STATUSES])),
          )
          .for('update');
        for (const r of open)
          await moveRun(tx, moved, r, 'cancel', at, { willRetry: false, nextRetryAt: null });
      }
      if (trigger === 'authorize') await scheduleNextRun(tx, moved, at);
    },
  });
}

const RUN_ACTIONS: Record<RunTrigger, string> = {
  start: 'recurring_run.started',
  skip: 'recurring_run.skipped',
  limit_exceeded: 'recurring_run.failed',
  succeed: 'recurring_run.succeeded',
  schedule_retry: 'recurring_run.retry_scheduled',
  fail: 'recurring_run.failed',
  auto_retry: 'recurring_run.retried',
  manual_retry: 'recurring_run.retried',
  cancel: 'recurring_run.canceled',
};

/** Applies a run trigger; a run that becomes final makes room for the next scheduled run. */
export function moveRun(
  tx: Tx,
  d: DefinitionRow,
  r: RunRow,
  trigger: RunTrigger,
  at: Date,
  set: Partial<RunRow> = {},
): Promise<RunRow | null> {
  return transition(tx, runTable, r, trigger, {
    set: { ...set, updatedAt: at },
    lost: 'null',
    event: (moved, { from }) => emitRunEvent(tx, moved, from, at),
    activity: (moved, { from, to }) =>
      recordActivity(tx, {
        clientId: r.clientId,
        action: RUN_ACTIONS[trigger],
        at,
        target: { type: 'recurring_run', id: r.id, label: `#${r.sequence} ${r.amount} ${r.currency}` },
        changes: { status: { from, to } },
        metadata: {
          definition_id: d.id,
          ...(moved.failureReason ? { failure_reason: moved.failureReason } : {}),
        },
      }),
    notify: async (moved, { to }) => {
      if (to !== 'failed') return;
      await notify(tx, {
        clientId: r.clientId,
        category: 'recurring_payments',
        severity: 'warning',
        title: 'Recurring payment run failed',
        body: `Run ${r.sequence} (${r.amount} ${r.currency}) failed: ${moved.failureReason ?? 'unknown'}.`,
        item: { type: 'recurring_payment', id: d.id },
        audience: { roles: OWNER_AND_OPERATIONS },
        at,
      });
    },
    after: async (moved, { from, to }) => {
      if (isFinalRun(to) && moved.kind === 'scheduled' && !isFinalRun(from)) await scheduleNextRun(tx, d, at);
    },
  });
}

/**
 * Creates the next scheduled run of an active or paused definition once no scheduled run is open (at
 * most one per (definition, scheduled_for): the unique index absorbs a concurrent duplicate). When the
 * calendar has ended and the last run is final, an active definition completes.
 */
export async function scheduleNextRun(tx: Tx, def: DefinitionRow, at: Date): Promise<RunRow | null> {
  const d = await findDefinitionById(tx, def.id, true);
  if (!d?.schedule || !d.amount || !['active', 'paused'].includes(d.status)) return null;
  const [last] = await tx
    .select()
    .from(recurringRuns)
    .where(and(eq(recurringRuns.definitionId, d.id), eq(recurringRuns.kind, 'scheduled')))
    .orderBy(desc(recurringRuns.scheduledFor))
    .limit(1);
  if (last && !isFinalRun(last.status)) return null;
  const slot = nextSlot(d.schedule, last?.scheduledFor ?? null, at, d.scheduledCount);
  if (!slot) {
    if (canApplyRecurring('complete', d.status)) await moveDefinition(tx, d, 'complete', at, AUTOMATIC_ACTOR);
    return null;
  }
  const [run] = await tx
    .insert(recurringRuns)
    .values({
      definitionId: d.id,
      clientId: d.clientId,
      sequence: d.runsCount + 1,
      kind: 'scheduled',
      scheduledFor: slot,
      amount: d.amount,
      currency: d.currency,
      description: d.description,
      status: 'scheduled',
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing()
    .returning();
  if (!run) return null;
  await tx.execute(sql`update recurring_payments
     set runs_count = runs_count + 1, scheduled_count = scheduled_count + 1, updated_at = ${at.toISOString()}::timestamptz
   where id = ${d.id}::uuid`);
  await emitRunEvent(tx, run, null, at);
  return run;
}

/**
 * After PATCH schedule: the open scheduled run moves to the new calendar's first slot after the last
 * earlier scheduled run (not before today), keeping its id; when the new calendar has no slot left it
 * is skipped, which completes the definition. Without an open run, the next one is scheduled.
 */
export async function followNewCalendar(tx: Tx, d: DefinitionRow, at: Date): Promise<void> {
  const [open] = await tx
    .select()
    .from(recurringRuns)
    .where(
      and(
        eq(recurringRuns.definitionId, d.id),
        eq(recurringRuns.kind, 'scheduled'),
        eq(recurringRuns.status, 'scheduled'),
      ),
    )
    .for('update');
  if (!open) {
    await scheduleNextRun(tx, d, at);
    return;
  }
  const [prev] = await tx
    .select({ scheduledFor: recurringRuns.scheduledFor })
    .from(recurringRuns)
    .where(
      and(
        eq(recurringRuns.definitionId, d.id),
        eq(recurringRuns.kind, 'scheduled'),
        sql`${recurringRuns.id} <> ${open.id}::uuid`,
      ),
    )
    .orderBy(desc(recurringRuns.scheduledFor))
    .limit(1);
  // The open run already counts in scheduled_count.
  const slot = d.schedule && nextSlot(d.schedule, prev?.scheduledFor ?? null, at, d.scheduledCount - 1);
  if (!slot) {
    await moveRun(tx, d, open, 'skip', at);
    return;
  }
  if (slot.getTime() !== open.scheduledFor.getTime())
    await tx
      .update(recurringRuns)
      .set({ scheduledFor: slot, updatedAt: at, version: open.version + 1 })
      .where(eq(recurringRuns.id, open.id));
}

const AUTOMATIC_ACTOR: Actor = { actorType: null, actorAccountId: null };

export function assertMoved<T>(row: T | null): T {
  if (!row) throw new AppError(409, RecurringMessages.changedMeanwhile);
  return row;
}
