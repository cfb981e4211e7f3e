/**
 * Persists what payments.machine.ts decides: compare-and-set update of the transaction, one
 * timeline row per change, the payment.status_changed webhook event and the in-process
 * `payments.status_changed` event (status-events.ts), all in the caller's database transaction.
 * Nothing else writes transactions.status.
 */

import type { Tx } from '../../db/client';
import { emitEvent } from '../../outbox/emit';
import type { EventBus } from '../../platform/events';
import { recordActivity } from '../activity/activity.writer';
import {
  type Decision,
  decideInternalMove,
  decideProviderStatus,
  isTerminal,
  type ReconciliationState,
  type TransactionStatus,
} from './payments.machine';
import {
  findTransactionById,
  insertStatusEvent,
  type StatusEventRow,
  type TransactionRow,
  transactionCoreFields,
  updateTransactionIfStatus,
} from './payments.repo';

export interface Actor {
  actorType: 'client_user' | 'client_api' | 'service_internal' | null;
  actorAccountId: string | null;
}
export const AUTOMATIC: Actor = { actorType: null, actorAccountId: null };

export interface ChangeContext {
  occurredAt: Date;
  now: Date;
  actor: Actor;
  /** Network transfer id carried by a notification (kept on the transaction). */
  transferId?: string | null;
}

/** A move of the status also tells the features that listen (the app's event bus). */
export interface MoveContext extends ChangeContext {
  events: EventBus;
}

export interface ChangeResult {
  transaction: TransactionRow;
  decision: Decision['kind'] | 'noop';
  statusEvent: StatusEventRow | null;
}

/** payment.status_changed data: every field of the spec's table. */
export function paymentEventData(t: TransactionRow, previous: string, detail: string | null, actor: Actor) {
  return {
    ...transactionCoreFields(t),
    previous_payment_status: previous,
    current_payment_status: t.status,
    reconciliation_state: t.reconciliationState,
    status_detail: detail,
    status_reason: t.statusReason,
    actor_type: actor.actorType,
    actor_account_id: actor.actorType === 'service_internal' ? null : actor.actorAccountId,
    // The merchant's own metadata from the payment link (additive to the spec's table).
    metadata: t.metadata ?? {},
  };
}

async function emitStatusChanged(
  tx: Tx,
  t: TransactionRow,
  previous: string,
  ev: StatusEventRow,
  actor: Actor,
) {
  await emitEvent(tx, {
    clientId: t.clientId,
    type: 'payment.status_changed',
    data: paymentEventData(t, previous, ev.providerStatus, actor),
    occurredAt: ev.occurredAt,
    dedupKey: `payment:${t.id}:${t.status}:${ev.id}`,
  });
}

function timelineRow(
  t: TransactionRow,
  from: string,
  ctx: ChangeContext,
  extra: { kind: string; providerStatus: string | null; reason: string | null },
) {
  return {
    transactionId: t.id,
    clientId: t.clientId,
    fromStatus: from,
    toStatus: t.status,
    providerStatus: extra.providerStatus,
    reconciliationState: t.reconciliationState,
    kind: extra.kind,
    reason: extra.reason,
    refId: t.refId,
    actorType: ctx.actor.actorType,
    actorAccountId: ctx.actor.actorType === 'service_internal' ? null : ctx.actor.actorAccountId,
    occurredAt: ctx.occurredAt,
  };
}

/**
 * Applies a detail code reported by the payment network (notification, refresh poll or sandbox
 * simulate) to a transaction. Retries the decision when a concurrent writer moved the row first.
 */
export async function applyProviderStatus(
  tx: Tx,
  transactionId: string,
  code: string,
  ctx: MoveContext,
): Promise<ChangeResult> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await findTransactionById(tx, transactionId);
    if (!current) throw new Error(`transaction ${transactionId} vanished`);
    const from = current.status as TransactionStatus;
    const d = decideProviderStatus(from, code);
    const transferId = ctx.transferId && !isTerminal(from) ? ctx.transferId : current.transferId;
    const base = { updatedAt: ctx.now, transferId };
    let updated: TransactionRow | null;
    switch (d.kind) {
      case 'transition':
        updated = await updateTransactionIfStatus(tx, current.id, from, {
          ...base,
          status: d.to,
          providerStatus: d.providerStatus,
          reconciliationState: d.reconciliation,
          statusReason: d.reason,
          completedAt: isTerminal(d.to) ? ctx.occurredAt : null,
        });
        break;
      case 'manual_review':
        updated = await updateTransactionIfStatus(tx, current.id, from, {
          ...base,
          providerStatus: d.providerStatus ?? current.providerStatus,
          reconciliationState: d.reconciliation,
          statusReason: d.reason,
        });
        break;
      case 'detail':
        updated = await updateTransactionIfStatus(tx, current.id, from, {
          ...base,
          // `unknown` never replaces a known detail status on the record; it stays on the timeline.
          providerStatus: d.providerStatus === 'unknown' ? current.providerStatus : d.providerStatus,
          // The network acknowledged the session: the confirmation window is over.
          reconciliationState:
            current.reconciliationState === 'awaiting_provider_confirmation'
              ? 'none'
              : current.reconciliationState,
        });
        break;
      case 'ignored':
        updated = current;
        break;
    }
    if (!updated) continue; // someone else moved it: decide again on the fresh row
    const ev = await insertStatusEvent(
      tx,
      timelineRow(updated, from, ctx, { kind: d.kind, providerStatus: d.providerStatus, reason: d.reason }),
    );
    if (d.emitEvent) await emitStatusChanged(tx, updated, from, ev, ctx.actor);
    if (d.kind === 'transition') {
      await ctx.events.emit(tx, 'payments.status_changed', {
        transaction: updated,
        from,
        to: d.to,
        at: ctx.occurredAt,
      });
      await statusActivity(tx, updated, from, d.to, ctx, d.reason ?? null);
    }
    return { transaction: updated, decision: d.kind, statusEvent: ev };
  }
  throw new Error(`transaction ${transactionId}: too much contention applying ${code}`);
}

/**
 * An internal move (cancel by payer/merchant, link expiry). Returns null when the table does not
 * allow it from the current status (e.g. the transaction is already terminal).
 */
export async function moveTransaction(
  tx: Tx,
  transactionId: string,
  to: TransactionStatus,
  providerStatus: string,
  ctx: MoveContext,
  reasonOverride?: string,
): Promise<ChangeResult | null> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await findTransactionById(tx, transactionId);
    if (!current) return null;
    const from = current.status as TransactionStatus;
    const m = decideInternalMove(from, to);
    if (!m.ok) return null;
    const reason = reasonOverride ?? m.row.reason;
    const updated = await updateTransactionIfStatus(tx, current.id, from, {
      status: to,
      providerStatus,
      reconciliationState: 'none' satisfies ReconciliationState,
      statusReason: reason,
      updatedAt: ctx.now,
      completedAt: isTerminal(to) ? ctx.occurredAt : null,
    });
    if (!updated) continue;
    const ev = await insertStatusEvent(
      tx,
      timelineRow(updated, from, ctx, { kind: 'transition', providerStatus, reason }),
    );
    await emitStatusChanged(tx, updated, from, ev, ctx.actor);
    await ctx.events.emit(tx, 'payments.status_changed', {
      transaction: updated,
      from,
      to,
      at: ctx.occurredAt,
    });
    await statusActivity(tx, updated, from, to, ctx, reason);
    return { transaction: updated, decision: 'transition', statusEvent: ev };
  }
  throw new Error(`transaction ${transactionId}: too much contention moving to ${to}`);
}

/** A timeline entry that changes no status (creation, session restart). */
export async function recordTimelineEntry(
  tx: Tx,
  t: TransactionRow,
  from: string | null,
  ctx: ChangeContext,
  entry: { kind: string; providerStatus: string | null; reason: string | null },
): Promise<StatusEventRow> {
  return insertStatusEvent(tx, { ...timelineRow(t, from ?? t.status, ctx, entry), fromStatus: from });
}

/** `transaction.<to>` in the activity log, e.g. transaction.canceled, transaction.success. */
async function statusActivity(
  tx: Tx,
  t: TransactionRow,
  from: string,
  to: string,
  ctx: ChangeContext,
  reason: string | null,
) {
  await recordActivity(tx, {
    clientId: t.clientId,
    action: `transaction.${to}`,
    at: ctx.now,
    target: { type: 'transaction', id: t.id, label: t.refId },
    changes: { status: { from, to } },
    metadata: { reason },
    // A request of another client (a payer on the hosted page) or none is an automatic change.
    ...(ctx.actor.actorType === null
      ? { actor: { type: 'system' as const, accountId: null, credentialId: null } }
      : {}),
  });
}
