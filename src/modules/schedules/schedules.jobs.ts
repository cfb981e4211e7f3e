/**
 * The schedules' timers (job rows, docs/platform.md "Timers"), one of each kind per instalment, kept
 * in step with the row by `syncInstalmentTimers` (schedules.transitions.ts) in every transaction that
 * writes it: the next payment link (`issue_due_at`: issue_at, an hourly retry after an issue error,
 * an automatic re-issue after a failed link), the grace end of an issued instalment (`grace_end_at`)
 * and a pending link to cancel (`intent_cancel_due_at`). Each handler re-reads the row and acts only
 * when it is still due; one found not yet due moves its timer to the row's time. Provider calls
 * happen outside transactions; payer emails are jobs (schedules-emails.service.ts).
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { paymentScheduleInstalments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { defineTimer, runDueTimers, setTimer } from '../../platform/jobs/index';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { findTransactionById } from '../payments/payments.repo';
import { cancelTransaction } from '../payments/payments.service';
import { AUTOMATIC } from '../payments/status.service';
import { findInstalmentById, findScheduleById, type InstalmentRow } from './schedules.repo';
import {
  INSTALMENT_INTENT_CANCEL,
  INSTALMENT_ISSUE,
  INSTALMENT_OVERDUE,
  moveInstalment,
  syncInstalmentTimers,
  syncSchedule,
} from './schedules.transitions';
import { issueInstalment } from './schedules-issue.service';

/** A link still in the making elsewhere (its idempotency key held) is tried again this much later. */
const RETRY_SECONDS = 120;

/** The timers' backfill and pull-forward select (see `TimerSpec.backfill`) over the rows `where`. */
const instalmentRows = (dueColumn: string, where: string) =>
  sql.raw(`select 'instalment:' || id::text as key, jsonb_build_object('instalmentId', id::text) as payload,
                  client_id, ${dueColumn} as run_at
             from payment_schedule_instalments where ${where}`);

/** Moves a timer found early to the row's own due time. */
async function notYet(deps: Deps, i: InstalmentRow, ref: typeof INSTALMENT_ISSUE, at: Date): Promise<false> {
  await setTimer(deps.db, deps.clock, ref, {
    payload: { instalmentId: i.id },
    runAt: at,
    clientId: i.clientId,
  });
  return false;
}

/**
 * The instalment's next payment link at `issue_due_at`: the first one of a scheduled instalment, or
 * an automatic re-issue of an issued one whose link failed. A failure records `issue_error` and moves
 * the timer an hour on (schedules-issue.service.ts); a link another attempt is still making, or one
 * not yet finished, is tried again later; a moved instalment (paid, canceled, overdue) ends it.
 */
export const instalmentIssueTimer = defineTimer<{ instalmentId: string }>({
  ...INSTALMENT_ISSUE,
  label: 'Instalment payment link',
  backfill: () =>
    instalmentRows('issue_due_at', `issue_due_at is not null and status in ('scheduled', 'issued')`),
  async fire(deps, { instalmentId }) {
    const i = await findInstalmentById(deps.db, instalmentId);
    if (!i?.issueDueAt || (i.status !== 'scheduled' && i.status !== 'issued')) return false;
    const now = deps.clock.now();
    if (i.issueDueAt > now) return notYet(deps, i, INSTALMENT_ISSUE, i.issueDueAt);
    const out = await issueInstalment(
      deps,
      i.id,
      i.status === 'scheduled' ? 'issue' : 'auto_reissue',
      AUTOMATIC,
    );
    if (out.kind !== 'skipped') return true;
    // Moved meanwhile: the timer stops, unless the instalment still waits for a link (then later).
    const retryAt = addSeconds(now, Math.max(RETRY_SECONDS, deps.config.idempotencyStaleSeconds));
    await deps.db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(paymentScheduleInstalments)
        .where(eq(paymentScheduleInstalments.id, i.id))
        .for('update');
      if (!current?.issueDueAt || current.issueDueAt > now) return;
      const waiting = current.status === 'scheduled' || current.status === 'issued';
      const written = await tx
        .update(paymentScheduleInstalments)
        .set({ issueDueAt: waiting ? retryAt : null })
        .where(eq(paymentScheduleInstalments.id, i.id))
        .returning();
      await syncInstalmentTimers(tx, now, written);
    });
    return false;
  },
});

/** issued -> overdue for one instalment (at grace end, or the sandbox simulation); the pending intent is canceled after. */
export async function markOverdue(tx: Tx, i: InstalmentRow, at: Date): Promise<InstalmentRow | null> {
  const s = await findScheduleById(tx, i.scheduleId);
  if (!s) return null;
  const moved = await moveInstalment(tx, s, i, 'overdue', at, {
    issueDueAt: null,
    intentToCancel: i.transactionId,
    intentCancelDueAt: i.transactionId ? at : null,
  });
  if (moved) await syncSchedule(tx, s.id, at);
  return moved;
}

/** An issued instalment whose grace end passed unpaid becomes overdue (under its row lock). */
export const instalmentOverdueTimer = defineTimer<{ instalmentId: string }>({
  ...INSTALMENT_OVERDUE,
  label: 'Instalment overdue',
  backfill: () => instalmentRows('grace_end_at', `status = 'issued'`),
  async fire(deps, { instalmentId }) {
    const now = deps.clock.now();
    const outcome = await deps.db.transaction(async (tx) => {
      const i = await findInstalmentById(tx, instalmentId, true);
      if (i?.status !== 'issued') return { acted: false, early: null };
      if (i.graceEndAt > now) return { acted: false, early: i };
      return { acted: (await markOverdue(tx, i, now)) !== null, early: null };
    });
    if (outcome.early) return notYet(deps, outcome.early, INSTALMENT_OVERDUE, outcome.early.graceEndAt);
    return outcome.acted;
  },
});

/**
 * Cancels the pending link recorded on an instalment (`intent_to_cancel`; a processing or finished
 * payment is left alone), then clears it unless a newer intent replaced it. Concurrent runs (the
 * timer and the request that recorded the intent) are safe: the payment's own compare-and-set lets
 * one cancel it, the other finds it canceled.
 */
async function cancelIntent(deps: Deps, instalmentId: string): Promise<boolean> {
  const i = await findInstalmentById(deps.db, instalmentId);
  if (!i?.intentCancelDueAt) return false;
  const now = deps.clock.now();
  if (i.intentCancelDueAt > now) return notYet(deps, i, INSTALMENT_INTENT_CANCEL, i.intentCancelDueAt);
  const t = i.intentToCancel ? await findTransactionById(deps.db, i.intentToCancel) : null;
  if (t && t.status === 'pending') {
    try {
      await cancelTransaction(deps, t, AUTOMATIC, 'Canceled with its payment schedule instalment');
    } catch (err) {
      if (!(err instanceof AppError && err.statusCode === 409)) throw err;
    }
  }
  await deps.db.transaction(async (tx) => {
    const cleared = await tx
      .update(paymentScheduleInstalments)
      .set({ intentCancelDueAt: null, intentToCancel: null })
      .where(
        and(
          eq(paymentScheduleInstalments.id, i.id),
          i.intentToCancel
            ? eq(paymentScheduleInstalments.intentToCancel, i.intentToCancel)
            : isNull(paymentScheduleInstalments.intentToCancel),
        ),
      )
      .returning();
    await syncInstalmentTimers(tx, now, cleared);
  });
  return true;
}

export const instalmentIntentCancelTimer = defineTimer<{ instalmentId: string }>({
  ...INSTALMENT_INTENT_CANCEL,
  label: 'Instalment link cancel',
  backfill: () => instalmentRows('intent_cancel_due_at', 'intent_cancel_due_at is not null'),
  fire: (deps, { instalmentId }) => cancelIntent(deps, instalmentId),
});

/**
 * The pending intents of the instalments a request just canceled or made overdue, canceled before it
 * answers (each in its own transaction); their timers remain for a run that fails here.
 */
export async function cancelIntentsNow(deps: Deps, ids: readonly string[]): Promise<void> {
  for (const id of ids) await cancelIntent(deps, id);
}

export const scheduleTimers = [instalmentIssueTimer, instalmentOverdueTimer, instalmentIntentCancelTimer];

/** Runs every due timer of the schedules now (tests, the CLI); returns how many acted. */
export function runDueScheduleTimers(deps: Deps): Promise<number> {
  return runDueTimers(deps, scheduleTimers);
}
