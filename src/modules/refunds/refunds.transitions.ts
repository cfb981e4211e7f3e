/**
 * The writes of the refund status machine (refunds.machine.ts): every move goes through `moveRefund`
 * (the platform's `transition`), which also moves the payment's refund sums, records `refunded` on the
 * payment's timeline when money went back, emits `refund.status_changed`, and writes the activity
 * entry and the notification, all in the caller's transaction; `holdRefundForReview` marks a
 * processing refund for a manual review.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { refunds } from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import { machineTable, transition } from '../../platform/machine';
import { newId } from '../../shared/ids';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import { findTransactionById } from '../payments/payments.repo';
import { type Actor, AUTOMATIC, recordTimelineEntry } from '../payments/status.service';
import {
  isRefundTerminal,
  REFUND_TRANSITIONS,
  type RefundRow,
  type RefundStatus,
  type RefundTrigger,
  refundMachine,
} from './refunds.machine';
import { RefundMessages } from './refunds.messages';

const refundTable = machineTable(refundMachine, refunds, { conflict: RefundMessages.changedMeanwhile });

export interface RefundMoveContext {
  now: Date;
  actor?: Actor;
  /** Columns written with the status (failure reason, network id, provider status). */
  set?: Partial<
    Pick<
      RefundRow,
      | 'failureReason'
      | 'networkRefundId'
      | 'providerStatus'
      | 'networkCheckAt'
      | 'reconciliationState'
      | 'reviewReason'
    >
  >;
  /** A move lost to another writer returns null instead of the 409 (workers, notifications). */
  lenient?: boolean;
}

/** The refund.status_changed and refund.created data (docs/guides/webhooks.md). */
export function refundEventData(r: RefundRow, previous: RefundStatus | null) {
  return {
    refund_id: r.id,
    transaction_id: r.transactionId,
    project_id: r.projectId,
    amount: r.amount,
    currency: r.currency,
    previous_status: previous,
    current_status: r.status,
    reason: r.reason,
    failure_reason: r.failureReason,
    reconciliation_state: r.reconciliationState,
    review_reason: r.reviewReason,
    metadata: r.metadata ?? {},
  };
}

const TITLES: Record<RefundStatus, string> = {
  pending: 'Refund requested',
  processing: 'Refund sent to the bank',
  succeeded: 'Refund completed',
  failed: 'Refund failed',
  canceled: 'Refund canceled',
};

export async function refundNotification(tx: Tx, r: RefundRow, now: Date): Promise<void> {
  const detail = r.failureReason ? `: ${r.failureReason}` : '';
  await notify(tx, {
    clientId: r.clientId,
    category: 'payments',
    severity: r.status === 'failed' ? 'warning' : 'info',
    title: TITLES[r.status],
    body: `Refund ${r.id} of ${r.amount} ${r.currency} for payment ${r.transactionId} is ${r.status}${detail}.`,
    item: null,
    audience: { roles: OWNER_AND_OPERATIONS },
    at: now,
  });
}

function systemActor(actor: Actor | undefined) {
  return !actor || actor.actorType === null
    ? { actor: { type: 'system' as const, accountId: null, credentialId: null } }
    : {};
}

/**
 * Moves a refund. The payment's sums follow in the same statement order every time (refund row,
 * then the payment row), so two refunds of one payment moving at once never deadlock.
 */
export async function moveRefund(
  tx: Tx,
  refund: RefundRow,
  trigger: RefundTrigger,
  ctx: RefundMoveContext,
): Promise<RefundRow | null> {
  const to = REFUND_TRANSITIONS[trigger].to;
  const finished = isRefundTerminal(to);
  return transition(tx, refundTable, refund, trigger, {
    set: { ...ctx.set, updatedAt: ctx.now, ...(finished ? { completedAt: ctx.now } : {}) },
    ...(ctx.lenient ? { lost: 'null' as const } : {}),
    before: async (r) => {
      if (to === 'succeeded') {
        await tx.execute(sql`update transactions
          set refunded_amount = refunded_amount + ${r.amount}::numeric,
              refund_held_amount = refund_held_amount - ${r.amount}::numeric
          where id = ${r.transactionId}::uuid`);
        const t = await findTransactionById(tx, r.transactionId);
        if (t)
          await recordTimelineEntry(
            tx,
            t,
            t.status,
            { occurredAt: ctx.now, now: ctx.now, actor: ctx.actor ?? AUTOMATIC },
            {
              kind: 'detail',
              providerStatus: 'refunded',
              reason: `Refunded ${r.amount} ${r.currency} (refund ${r.id})`,
            },
          );
      } else if (to === 'failed' || to === 'canceled') {
        await tx.execute(sql`update transactions
          set refund_held_amount = refund_held_amount - ${r.amount}::numeric
          where id = ${r.transactionId}::uuid`);
      }
    },
    event: async (r, { from }) => {
      await emitEvent(tx, {
        clientId: r.clientId,
        type: 'refund.status_changed',
        data: refundEventData(r, from),
        occurredAt: ctx.now,
        dedupKey: `refund:${r.id}:${r.status}:${newId()}`,
      });
    },
    activity: (r, { from }) =>
      recordActivity(tx, {
        clientId: r.clientId,
        action: `refund.${to}`,
        at: ctx.now,
        target: { type: 'refund', id: r.id, label: `${r.amount} ${r.currency}` },
        changes: { status: { from, to } },
        metadata: { transaction_id: r.transactionId, failure_reason: r.failureReason },
        ...systemActor(ctx.actor),
      }),
    notify: (r) => refundNotification(tx, r, ctx.now),
  });
}

/**
 * Holds a processing refund for manual review: the network cannot say whether the money moved (no
 * final status, or an earlier attempt that cannot be found). The status stays `processing` and the
 * amount stays held against the payment; `reconciliation_state` becomes `manual_review_required`
 * with the reason; `refund.status_changed` is emitted with previous == current status, the
 * merchant's owners and operations get a critical notification, and the activity log an entry,
 * all in the caller's transaction. The reconciliation sweep reads it again at `nextCheckAt`.
 * Returns null (nothing written) when the refund is not processing or is already held for the
 * same reason.
 */
export async function holdRefundForReview(
  tx: Tx,
  refund: RefundRow,
  reason: string,
  ctx: { now: Date; nextCheckAt: Date; set?: Partial<Pick<RefundRow, 'providerStatus' | 'networkRefundId'>> },
): Promise<RefundRow | null> {
  if (
    refund.status !== 'processing' ||
    (refund.reconciliationState === 'manual_review_required' && refund.reviewReason === reason)
  )
    return null;
  const [held] = await tx
    .update(refunds)
    .set({
      ...ctx.set,
      reconciliationState: 'manual_review_required',
      reviewReason: reason,
      networkCheckAt: ctx.nextCheckAt,
      updatedAt: ctx.now,
    })
    .where(and(eq(refunds.id, refund.id), eq(refunds.status, 'processing')))
    .returning();
  if (!held) return null;
  await emitEvent(tx, {
    clientId: held.clientId,
    type: 'refund.status_changed',
    data: refundEventData(held, held.status),
    occurredAt: ctx.now,
    dedupKey: `refund:${held.id}:manual_review_required:${newId()}`,
  });
  await recordActivity(tx, {
    clientId: held.clientId,
    action: 'refund.manual_review_required',
    at: ctx.now,
    target: { type: 'refund', id: held.id, label: `${held.amount} ${held.currency}` },
    changes: { reconciliation_state: { from: refund.reconciliationState, to: 'manual_review_required' } },
    metadata: { transaction_id: held.transactionId, review_reason: reason },
    actor: { type: 'system', accountId: null, credentialId: null },
  });
  await notify(tx, {
    clientId: held.clientId,
    category: 'payments',
    severity: 'critical',
    title: `Refund ${held.id} needs a manual review`,
    body: `Refund ${held.id} of ${held.amount} ${held.currency} for payment ${held.transactionId}: ${reason}. Check with the bank before refunding again.`,
    item: null,
    audience: { roles: OWNER_AND_OPERATIONS },
    at: ctx.now,
  });
  return held;
}
