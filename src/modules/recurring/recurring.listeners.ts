/**
 * Reacts to the bank, inside the transaction that records what the bank said:
 * - an attempt's payment status change (origin recurring): success -> the run succeeds; failed,
 *   expired or canceled -> the attempt fails with its reason, and the run is retried automatically
 *   or fails (runs.machine.ts decides);
 * - a mandate notification: authorized -> active (first run scheduled); rejected -> authorization_failed;
 *   expired -> authorization_failed while pending (the bank's window lapsed) or expired; revoked -> revoked.
 * Locks in the order definition -> attempt -> run, like every other writer of this module.
 */
import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { recurringAttempts } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { on } from '../../platform/module';
import type { BankNotification } from '../../providers/bank/port';
import { AUTOMATIC } from '../payments/status.service';
import { onPaymentStatus } from '../payments/status-events.service';
import { canApplyRecurring, type MandateStatus, type RecurringTrigger } from './recurring.machine';
import { findDefinitionBy, findDefinitionById, findRunById } from './recurring.repo';
import { moveDefinition, moveRun } from './recurring.transitions';
import { failAttempt } from './recurring-attempts.service';
import { failureReasonOf } from './runs.machine';

export const settleRunOnPayment = onPaymentStatus(
  'recurring',
  async ({ transaction, to, at }, { tx, deps }) => {
    if (!['success', 'failed', 'expired', 'canceled'].includes(to)) return;
    const [found] = await tx
      .select({ id: recurringAttempts.id, runId: recurringAttempts.runId })
      .from(recurringAttempts)
      .where(eq(recurringAttempts.transactionId, transaction.id));
    if (!found || !transaction.originId) return;
    const d = await findDefinitionById(tx, transaction.originId, true);
    const [a] = await tx
      .select()
      .from(recurringAttempts)
      .where(eq(recurringAttempts.id, found.id))
      .for('update');
    const r = await findRunById(tx, found.runId, true);
    if (!d || !a || !r || a.outcome !== null) return;
    if (to === 'success') {
      await tx
        .update(recurringAttempts)
        .set({ outcome: 'succeeded', finishedAt: at, launchDueAt: null })
        .where(eq(recurringAttempts.id, a.id));
      if (r.status === 'processing')
        await moveRun(tx, d, r, 'succeed', at, { transactionId: transaction.id, failureReason: null });
      return;
    }
    // No final status from the bank: money may have moved, so a second charge is never tried
    // (automatically here, by hand in recurring-retry.service.ts) while the payment is held for review.
    const held = transaction.reconciliationState === 'manual_review_required';
    const reason = held
      ? 'outcome_unknown'
      : d.mandateStatus === 'revoked' && d.status === 'revoked'
        ? 'mandate_revoked'
        : failureReasonOf(transaction.providerStatus, to);
    const retry = !held;
    await failAttempt(deps, tx, d, r, a, reason, at, retry);
  },
);

const MANDATE_MOVES: Record<
  string,
  { pending?: RecurringTrigger; live?: RecurringTrigger; mandate: MandateStatus }
> = {
  mandate_authorized: { pending: 'authorize', mandate: 'authorized' },
  mandate_rejected: { pending: 'authorization_fail', mandate: 'rejected' },
  mandate_expired: { pending: 'authorization_fail', live: 'expire', mandate: 'expired' },
  mandate_revoked: { live: 'revoke', mandate: 'revoked' },
};

const REASONS: Record<string, string> = {
  mandate_rejected: 'payer_rejected',
  mandate_expired: 'mandate_expired',
  mandate_revoked: 'revoked_by_payer',
};

/** Applies a mandate's status reported by the bank, in the caller's transaction; true when the definition moved. */
export async function applyMandateNotification(
  deps: Pick<Deps, 'clock'>,
  tx: Tx,
  n: BankNotification,
): Promise<boolean> {
  const move = MANDATE_MOVES[n.providerStatus];
  if (!move) return false;
  const found = await findDefinitionBy(tx, { mandateRef: n.refId });
  if (!found) return false;
  const d = await findDefinitionById(tx, found.id, true);
  if (!d) return false;
  const trigger = d.status === 'pending_authorization' ? move.pending : move.live;
  if (!trigger || !canApplyRecurring(trigger, d.status)) return false;
  const now = deps.clock.now();
  const reason =
    n.providerStatus === 'mandate_expired' && d.status === 'pending_authorization'
      ? 'authorization_timed_out'
      : (REASONS[n.providerStatus] ?? null);
  const moved = await moveDefinition(tx, d, trigger, now, AUTOMATIC, {
    mandateStatus: move.mandate,
    statusReason: reason,
    ...(trigger === 'authorize' ? { authorizedAt: now, validFrom: now } : {}),
  });
  return moved !== null;
}

/** Mandate notifications arrive on the payments feature's bank route. */
export const applyMandateOnNotification = on('payments.mandate_notification', (n, { tx, deps }) =>
  applyMandateNotification(deps, tx, n),
);
