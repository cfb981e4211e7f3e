/**
 * Issuing an instalment's next payment link: through the paylink use case (key
 * `schedule:<instalment_id>:<link_number>`, origin `{type: "schedule"}`), outside any database
 * transaction; then the instalment, its event, the payer emails and the schedule in one transaction.
 * The key makes a repeated or concurrent attempt (worker and issue-now, or a crash) return the same
 * link. A failure keeps the instalment as it is with `issue_error`, retried hourly, and notifies.
 */
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { type paymentScheduleEmails, paymentScheduleInstalments } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { addDays, startOfDay } from '../../platform/calendar';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { M } from '../../shared/messages';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import { createPlatformPaymentLink, type PaylinkInput } from '../payments/paylink.service';
import { isTerminal } from '../payments/payments.machine';
import { findTransactionById } from '../payments/payments.repo';
import { checkoutUrl } from '../payments/payments.service';
import type { Actor } from '../payments/status.service';
import { canApplyInstalment } from './schedules.machine';
import { ScheduleMessages } from './schedules.messages';
import { findInstalmentById, findScheduleById, type InstalmentRow, type ScheduleRow } from './schedules.repo';
import { moveInstalment, syncInstalmentTimers, syncSchedule } from './schedules.transitions';
import { queueScheduleEmails } from './schedules-emails.service';

export type IssueTrigger = 'issue' | 'auto_reissue' | 'reissue';
export type IssueOutcome =
  | { kind: 'issued'; instalment: InstalmentRow }
  | { kind: 'failed'; error: AppError }
  /** Nothing to do any more (moved meanwhile), or another attempt holds the link key: try later. */
  | { kind: 'skipped' };

const RETRY_SECONDS = 3600;
/** Reminders go out at 09:00 UTC the day before the due date and on it. */
const REMINDER_HOUR_MS = 9 * 3600 * 1000;

function linkBody(s: ScheduleRow, i: InstalmentRow, now: Date, count: number): PaylinkInput {
  const seconds = Math.floor((i.graceEndAt.getTime() - now.getTime()) / 1000);
  return {
    amount: i.amount,
    currency: s.currency,
    project_id: s.projectId,
    ...(s.userId ? { user_id: s.userId } : { business_customer_id: s.businessCustomerId! }),
    description: s.description ?? `Instalment ${i.sequence} of ${count}`,
    // The link lives until the end of due_date + grace_days (UTC).
    expires_in_seconds: Math.max(60, seconds),
    metadata: { ...s.metadata, schedule_id: s.id, instalment_sequence: String(i.sequence) },
  };
}

/** Payer emails of a new link (and, with the first link, the reminders still ahead). */
async function queueEmails(tx: Tx, s: ScheduleRow, i: InstalmentRow, now: Date, first: boolean) {
  if (s.delivery !== 'email') return;
  const rows: (typeof paymentScheduleEmails.$inferInsert)[] = [
    { clientId: s.clientId, instalmentId: i.id, kind: 'link', linkNumber: i.linkNumber, dueAt: now },
  ];
  if (first && s.reminders) {
    for (const [kind, date] of [
      ['reminder_before', addDays(i.dueDate, -1)],
      ['reminder_due', i.dueDate],
    ] as const) {
      const at = new Date(startOfDay(date).getTime() + REMINDER_HOUR_MS);
      if (at > now) rows.push({ clientId: s.clientId, instalmentId: i.id, kind, linkNumber: 1, dueAt: at });
    }
  }
  await queueScheduleEmails(tx, now, rows);
}

/** Whether `trigger` still applies to the instalment as it is now. */
function stillApplies(trigger: IssueTrigger, i: InstalmentRow): boolean {
  if (trigger === 'issue') return i.status === 'scheduled';
  if (trigger === 'auto_reissue') return i.status === 'issued';
  return canApplyInstalment('reissue', i.status);
}

export async function issueInstalment(
  deps: Deps,
  instalmentId: string,
  trigger: IssueTrigger,
  actor: Actor,
): Promise<IssueOutcome> {
  const i = await findInstalmentById(deps.db, instalmentId);
  const s = i ? await findScheduleById(deps.db, i.scheduleId) : null;
  if (!i || !s || !stillApplies(trigger, i)) return { kind: 'skipped' };
  // After the grace end an automatic re-issue gives way to overdue (the worker's next step).
  if (trigger === 'auto_reissue' && deps.clock.now() >= i.graceEndAt) return { kind: 'skipped' };
  // A new link replaces an issued one only once that link is finished (failed, expired, canceled).
  if (i.status === 'issued' && i.transactionId) {
    const current = await findTransactionById(deps.db, i.transactionId);
    if (current && !isTerminal(current.status)) return { kind: 'skipped' };
  }
  const count = (
    await deps.db
      .select({ id: paymentScheduleInstalments.id })
      .from(paymentScheduleInstalments)
      .where(eq(paymentScheduleInstalments.scheduleId, s.id))
  ).length;
  const next = i.linkNumber + 1;
  const now = deps.clock.now();
  let link: Awaited<ReturnType<typeof createPlatformPaymentLink>>;
  try {
    link = await createPlatformPaymentLink(deps, {
      clientId: s.clientId,
      actor,
      key: `schedule:${i.id}:${next}`,
      body: linkBody(s, i, now, count),
      origin: { type: 'schedule', id: s.id },
    });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.statusCode === 409 && err.detail === M.idempotencyInProgress) return { kind: 'skipped' };
    await recordIssueError(deps, s, i, err.detail);
    return { kind: 'failed', error: err };
  }
  const at = deps.clock.now();
  const url = checkoutUrl(deps, link.transaction);
  const issued = await deps.db.transaction(async (tx) => {
    const current = await findInstalmentById(tx, i.id, true);
    if (!current) return null;
    if (current.linkNumber >= next) return current; // recorded by a concurrent attempt
    if (!stillApplies(trigger, current)) {
      // Canceled or paid meanwhile: the new link must not stay payable.
      const marked = await tx
        .update(paymentScheduleInstalments)
        .set({ intentToCancel: link.transaction.id, intentCancelDueAt: at })
        .where(eq(paymentScheduleInstalments.id, i.id))
        .returning();
      await syncInstalmentTimers(tx, at, marked);
      return null;
    }
    const moved = await moveInstalment(tx, s, current, trigger, at, {
      transactionId: link.transaction.id,
      checkoutUrl: url,
      linkNumber: next,
      issueError: null,
      issueDueAt: null,
    });
    if (!moved) throw new AppError(409, ScheduleMessages.instalmentChangedMeanwhile);
    await queueEmails(tx, s, moved, at, next === 1);
    await syncSchedule(tx, s.id, at);
    return moved;
  });
  return issued ? { kind: 'issued', instalment: issued } : { kind: 'skipped' };
}

/** issue_error, the next try in an hour, and a notification when the error is new. */
async function recordIssueError(deps: Deps, s: ScheduleRow, i: InstalmentRow, detail: string) {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(paymentScheduleInstalments)
      .set({ issueError: detail, issueDueAt: addSeconds(now, RETRY_SECONDS), updatedAt: now })
      .where(and(eq(paymentScheduleInstalments.id, i.id), eq(paymentScheduleInstalments.status, i.status)))
      .returning();
    if (!row) return;
    await syncInstalmentTimers(tx, now, [row]);
    await recordActivity(tx, {
      clientId: s.clientId,
      action: 'payment_schedule.instalment_issue_failed',
      at: now,
      outcome: 'failure',
      target: {
        type: 'payment_schedule_instalment',
        id: i.id,
        label: `#${i.sequence} ${i.amount} ${s.currency}`,
      },
      metadata: { schedule_id: s.id, issue_error: detail, retry_at: row.issueDueAt?.toISOString() },
    });
    if (i.issueError !== detail) {
      await notify(tx, {
        clientId: s.clientId,
        category: 'payment_schedules',
        severity: 'warning',
        title: 'Instalment payment link could not be issued',
        body: `Instalment ${i.sequence} (${i.amount} ${s.currency}, due ${i.dueDate}): ${detail}. Retrying hourly.`,
        item: { type: 'payment_schedule', id: s.id },
        audience: { roles: OWNER_AND_OPERATIONS },
        at: now,
      });
    }
  });
}
