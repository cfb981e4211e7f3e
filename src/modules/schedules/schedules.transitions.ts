/**
 * Persists what schedules.machine.ts decides, in the caller's transaction: the compare-and-set, the
 * event (`payment_schedule.instalment.status_changed` / `payment_schedule.status_changed`), the
 * activity entry and, for an overdue instalment, the notification to owners and operations; and the
 * instalment's timers (job rows, docs/platform.md "Timers"), which follow its row.
 */
import type { Tx } from '../../db/client';
import { paymentScheduleInstalments, paymentSchedules } from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import { cancelTimers, setTimers, type TimerRef, timerRef } from '../../platform/jobs/index';
import { machineTable, transition } from '../../platform/machine';
import { AppError } from '../../shared/errors';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import {
  deriveScheduleTrigger,
  type InstalmentStatus,
  type InstalmentTrigger,
  instalmentMachine,
  type ScheduleStatus,
  scheduleMachine,
} from './schedules.machine';
import { ScheduleMessages } from './schedules.messages';
import { findScheduleById, type InstalmentRow, instalmentsOf, type ScheduleRow } from './schedules.repo';
import { sumAmounts } from './schedules-money.policy';

type InstalmentTimer = { instalmentId: string };
const byInstalment = (p: InstalmentTimer) => `instalment:${p.instalmentId}`;

/** The next payment link is due (`issue_due_at`) while the instalment is scheduled or issued. */
export const INSTALMENT_ISSUE = timerRef<InstalmentTimer>({
  kind: 'schedules.instalment_issue',
  keyOf: byInstalment,
});
/** An issued instalment becomes overdue at its grace end (`grace_end_at`). */
export const INSTALMENT_OVERDUE = timerRef<InstalmentTimer>({
  kind: 'schedules.instalment_overdue',
  keyOf: byInstalment,
});
/** A link of an overdue or canceled instalment still pending is canceled (`intent_cancel_due_at`). */
export const INSTALMENT_INTENT_CANCEL = timerRef<InstalmentTimer>({
  kind: 'schedules.intent_cancel',
  keyOf: byInstalment,
});

/** Each timer of an instalment and its due time given the row as written (null: no timer). */
const INSTALMENT_TIMERS: readonly [TimerRef<InstalmentTimer>, (i: InstalmentRow) => Date | null][] = [
  [INSTALMENT_ISSUE, (i) => (i.status === 'scheduled' || i.status === 'issued' ? i.issueDueAt : null)],
  [INSTALMENT_OVERDUE, (i) => (i.status === 'issued' ? i.graceEndAt : null)],
  [INSTALMENT_INTENT_CANCEL, (i) => i.intentCancelDueAt],
];

/**
 * Makes the instalments' timers match their rows, in the transaction that wrote them: every write of
 * an instalment's status, `issue_due_at`, `grace_end_at` or `intent_cancel_due_at` calls this with
 * the rows as written. A due time sets (or moves) its timer; no due time removes the pending one.
 * The handlers (schedules.jobs.ts) re-read the row, so a timer a concurrent write made stale is a
 * no-op when it runs.
 */
export async function syncInstalmentTimers(tx: Tx, now: Date, rows: readonly InstalmentRow[]): Promise<void> {
  const clock = { now: () => now };
  for (const [ref, dueOf] of INSTALMENT_TIMERS) {
    const set: { payload: InstalmentTimer; runAt: Date; clientId: string }[] = [];
    const cancel: InstalmentTimer[] = [];
    for (const i of rows) {
      const at = dueOf(i);
      if (at) set.push({ payload: { instalmentId: i.id }, runAt: at, clientId: i.clientId });
      else cancel.push({ instalmentId: i.id });
    }
    await setTimers(tx, clock, ref, set);
    await cancelTimers(tx, ref, cancel);
  }
}

const instalmentTable = machineTable(instalmentMachine, paymentScheduleInstalments, {
  version: 'version',
  conflict: ScheduleMessages.instalmentChangedMeanwhile,
});
const scheduleTable = machineTable(scheduleMachine, paymentSchedules, {
  version: 'version',
  conflict: ScheduleMessages.scheduleChangedMeanwhile,
});

const INSTALMENT_ACTIONS: Record<InstalmentTrigger, string> = {
  issue: 'payment_schedule.instalment_issued',
  pay: 'payment_schedule.instalment_paid',
  auto_reissue: 'payment_schedule.instalment_reissued',
  overdue: 'payment_schedule.instalment_overdue',
  reissue: 'payment_schedule.instalment_reissued',
  cancel: 'payment_schedule.instalment_canceled',
};

export async function emitInstalmentEvent(
  tx: Tx,
  s: ScheduleRow,
  i: InstalmentRow,
  previous: InstalmentStatus | null,
  at: Date,
): Promise<void> {
  await emitEvent(tx, {
    clientId: s.clientId,
    type: 'payment_schedule.instalment.status_changed',
    data: {
      schedule_id: s.id,
      instalment_id: i.id,
      sequence: i.sequence,
      amount: i.amount,
      currency: s.currency,
      due_date: i.dueDate,
      transaction_id: i.transactionId,
      checkout_url: i.checkoutUrl,
      link_number: i.linkNumber,
      previous_status: previous,
      current_status: i.status,
    },
    occurredAt: at,
    dedupKey: `payment_schedule.instalment:${i.id}:v${i.version}`,
  });
}

export async function emitScheduleEvent(
  tx: Tx,
  s: ScheduleRow,
  previous: ScheduleStatus | null,
  amountPaid: string,
  at: Date,
): Promise<void> {
  await emitEvent(tx, {
    clientId: s.clientId,
    type: 'payment_schedule.status_changed',
    data: {
      schedule_id: s.id,
      previous_status: previous,
      current_status: s.status,
      total_amount: s.totalAmount,
      amount_paid: amountPaid,
      currency: s.currency,
      user_id: s.userId,
      business_customer_id: s.businessCustomerId,
    },
    occurredAt: at,
    dedupKey: `payment_schedule:${s.id}:v${s.version}`,
  });
}

/**
 * Applies an instalment trigger (400 when the table refuses it) with the extra columns `set`; null
 * when a concurrent writer moved the instalment first.
 */
export function moveInstalment(
  tx: Tx,
  s: ScheduleRow,
  i: InstalmentRow,
  trigger: InstalmentTrigger,
  at: Date,
  set: Partial<InstalmentRow> = {},
): Promise<InstalmentRow | null> {
  return transition(tx, instalmentTable, i, trigger, {
    set: { ...set, updatedAt: at },
    lost: 'null',
    event: (moved, { from }) => emitInstalmentEvent(tx, s, moved, from, at),
    activity: (moved, { from, to }) =>
      recordActivity(tx, {
        clientId: s.clientId,
        action: INSTALMENT_ACTIONS[trigger],
        at,
        target: {
          type: 'payment_schedule_instalment',
          id: moved.id,
          label: `#${moved.sequence} ${moved.amount} ${s.currency}`,
        },
        changes: {
          status: { from, to },
          ...(set.transactionId
            ? { transaction_id: { from: i.transactionId, to: moved.transactionId } }
            : {}),
        },
        metadata: { schedule_id: s.id, link_number: moved.linkNumber },
      }),
    notify: async (moved, { from, to }) => {
      if (to !== 'overdue' || from === 'overdue') return;
      await notify(tx, {
        clientId: s.clientId,
        category: 'payment_schedules',
        severity: 'warning',
        title: 'Instalment overdue',
        body: `Instalment ${moved.sequence} (${moved.amount} ${s.currency}, due ${moved.dueDate}) is overdue.`,
        item: { type: 'payment_schedule', id: s.id },
        audience: { roles: OWNER_AND_OPERATIONS },
        at,
      });
    },
    after: (moved) => syncInstalmentTimers(tx, at, [moved]),
  });
}

/**
 * Moves the schedule to what its instalments imply (locks the schedule row first). `forced` applies
 * a trigger of its own (POST …/cancel). Returns the schedule as it is now.
 */
export async function syncSchedule(
  tx: Tx,
  scheduleId: string,
  at: Date,
  opts: { forced?: 'cancel'; set?: Partial<ScheduleRow> } = {},
): Promise<ScheduleRow> {
  const s = await findScheduleById(tx, scheduleId, true);
  if (!s) throw new AppError(500, 'schedule vanished');
  const instalments = await instalmentsOf(tx, [s.id]);
  const trigger = opts.forced ?? deriveScheduleTrigger(s.status, instalments);
  if (!trigger || !scheduleMachine.can(trigger, s.status)) return s;
  const paid = sumAmounts(
    instalments.filter((i) => i.status === 'paid').map((i) => i.amount),
    s.currency,
  );
  // The schedule row is locked: a lost compare-and-set is the table's 409, never silent.
  return transition(tx, scheduleTable, s, trigger, {
    set: ({ to }) => ({
      updatedAt: at,
      ...(to === 'completed' ? { completedAt: at } : {}),
      ...(to === 'canceled' ? { canceledAt: at } : {}),
      ...opts.set,
    }),
    event: (moved, { from }) => emitScheduleEvent(tx, moved, from, paid, at),
    activity: (_moved, { from, to }) =>
      recordActivity(tx, {
        clientId: s.clientId,
        action: `payment_schedule.${to}`,
        at,
        target: { type: 'payment_schedule', id: s.id, label: `${s.totalAmount} ${s.currency}` },
        changes: { status: { from, to } },
        metadata: { amount_paid: paid },
      }),
  });
}
