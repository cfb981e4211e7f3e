/**
 * Reacts to the status changes of schedule links, inside the transaction that moves the payment:
 * success -> the instalment is paid; failed, expired or canceled -> before the grace end with links
 * left, the instalment is marked due for a new link (its issue timer makes it, outside this transaction);
 * otherwise it is overdue.
 */
import { and, eq } from 'drizzle-orm';
import { paymentScheduleInstalments } from '../../db/schema/index';
import { onPaymentStatus } from '../payments/status-events.service';
import { markOverdue } from './schedules.jobs';
import { canApplyInstalment } from './schedules.machine';
import { findScheduleById } from './schedules.repo';
import { moveInstalment, syncInstalmentTimers, syncSchedule } from './schedules.transitions';

export const moveInstalmentOnPayment = onPaymentStatus(
  'schedule',
  async ({ transaction, to, at }, { tx }) => {
    const [i] = await tx
      .select()
      .from(paymentScheduleInstalments)
      .where(
        and(
          eq(paymentScheduleInstalments.transactionId, transaction.id),
          eq(paymentScheduleInstalments.clientId, transaction.clientId),
        ),
      )
      .for('update');
    if (!i) return; // an earlier link of the instalment: only the current one counts
    const status = i.status;
    if (to === 'success') {
      if (!canApplyInstalment('pay', status)) return;
      const s = await findScheduleById(tx, i.scheduleId);
      if (!s) return;
      await moveInstalment(tx, s, i, 'pay', at, {
        paidAt: at,
        issueDueAt: null,
        intentToCancel: null,
        intentCancelDueAt: null,
      });
      await syncSchedule(tx, s.id, at);
      return;
    }
    if (!['failed', 'expired', 'canceled'].includes(to) || status !== 'issued') return;
    const s = await findScheduleById(tx, i.scheduleId);
    if (!s) return;
    if (at < i.graceEndAt && i.linkNumber < s.maxLinks) {
      const due = await tx
        .update(paymentScheduleInstalments)
        .set({ issueDueAt: at, updatedAt: at })
        .where(eq(paymentScheduleInstalments.id, i.id))
        .returning();
      await syncInstalmentTimers(tx, at, due);
      return;
    }
    await markOverdue(tx, i, at);
  },
);
