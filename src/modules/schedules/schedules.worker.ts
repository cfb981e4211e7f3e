/**
 * The schedules worker. Every timer is a column with a due time, claimed with FOR UPDATE SKIP LOCKED
 * on the injected clock: links due (`issue_due_at`, leased while the link is made), grace ends
 * (`grace_end_at`) and pending intents to cancel (`intent_cancel_due_at`). Provider calls happen
 * outside transactions; payer emails are jobs (schedules-emails.service.ts).
 */
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client';
import { type InstalmentStatus, paymentScheduleInstalments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { findTransactionById } from '../payments/payments.repo';
import { cancelTransaction } from '../payments/payments.service';
import { AUTOMATIC } from '../payments/status.service';
import { findScheduleById, type InstalmentRow } from './schedules.repo';
import { moveInstalment, syncSchedule } from './schedules.transitions';
import { issueInstalment } from './schedules-issue.service';

const LEASE_SECONDS = 120;

/** Instalments whose link is due: scheduled at issue_at (or an hourly retry), issued after a failed link. */
export async function issueDueInstalments(deps: Deps, limit = 20): Promise<number> {
  const now = deps.clock.now();
  const res = await deps.db.execute(sql`
    update payment_schedule_instalments i
       set issue_due_at = ${addSeconds(now, Math.max(LEASE_SECONDS, deps.config.idempotencyStaleSeconds)).toISOString()}::timestamptz
      from (select id from payment_schedule_instalments
             where issue_due_at <= ${now.toISOString()}::timestamptz and status in ('scheduled', 'issued')
             order by issue_due_at limit ${limit}
             for update skip locked) c
     where i.id = c.id
    returning i.id, i.status`);
  const due = rowsOf<{ id: string; status: InstalmentStatus }>(res);
  for (const d of due) {
    const out = await issueInstalment(
      deps,
      d.id,
      d.status === 'scheduled' ? 'issue' : 'auto_reissue',
      AUTOMATIC,
    );
    if (out.kind === 'skipped') {
      // Moved meanwhile: stop the timer unless the instalment still waits for a link.
      await deps.db
        .update(paymentScheduleInstalments)
        .set({ issueDueAt: null })
        .where(
          and(
            eq(paymentScheduleInstalments.id, d.id),
            sql`${paymentScheduleInstalments.status} not in ('scheduled', 'issued')`,
          ),
        );
    }
  }
  return due.length;
}

/** issued -> overdue for one instalment (worker at grace end, or the sandbox simulation); the pending intent is canceled after. */
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

export async function markLapsedInstalmentsOverdue(deps: Deps, limit = 50): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(paymentScheduleInstalments)
      .where(
        and(eq(paymentScheduleInstalments.status, 'issued'), lte(paymentScheduleInstalments.graceEndAt, now)),
      )
      .orderBy(paymentScheduleInstalments.graceEndAt)
      .limit(limit)
      .for('update', { skipLocked: true });
    for (const i of due) await markOverdue(tx, i, now);
    return due.length;
  });
}

/**
 * Cancels the pending intents recorded on instalments (intent-cancel rules, each in its own
 * transaction; a processing or finished payment is left alone). `ids` limits it to some instalments
 * (the request that canceled them); the worker takes every due one.
 */
export async function cancelDueIntents(deps: Deps, ids?: string[], limit = 20): Promise<number> {
  const now = deps.clock.now();
  const claimed = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: paymentScheduleInstalments.id, tx: paymentScheduleInstalments.intentToCancel })
      .from(paymentScheduleInstalments)
      .where(
        and(
          lte(paymentScheduleInstalments.intentCancelDueAt, now),
          ids ? inArray(paymentScheduleInstalments.id, ids) : undefined,
        ),
      )
      .limit(limit)
      .for('update', { skipLocked: true });
    if (rows.length > 0)
      await tx
        .update(paymentScheduleInstalments)
        .set({ intentCancelDueAt: addSeconds(now, LEASE_SECONDS) })
        .where(
          inArray(
            paymentScheduleInstalments.id,
            rows.map((r) => r.id),
          ),
        );
    return rows;
  });
  for (const c of claimed) {
    const t = c.tx ? await findTransactionById(deps.db, c.tx) : null;
    if (t && t.status === 'pending') {
      try {
        await cancelTransaction(deps, t, AUTOMATIC, 'Canceled with its payment schedule instalment');
      } catch (err) {
        if (!(err instanceof AppError && err.statusCode === 409)) throw err;
      }
    }
    await deps.db
      .update(paymentScheduleInstalments)
      .set({ intentCancelDueAt: null, intentToCancel: null })
      .where(eq(paymentScheduleInstalments.id, c.id));
  }
  return claimed.length;
}

/** One tick of the schedules worker. */
export async function runSchedulesWorker(deps: Deps): Promise<number> {
  let did = 0;
  did += await issueDueInstalments(deps);
  did += await markLapsedInstalmentsOverdue(deps);
  did += await cancelDueIntents(deps);
  return did;
}
