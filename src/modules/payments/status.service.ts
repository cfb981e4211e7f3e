/**
 * Persists what payments.machine.ts decides: the platform's compare-and-set of the transaction, one
 * timeline row per change, the payment.status_changed webhook event and the in-process
 * `payments.status_changed` event (status-events.service.ts), all in the caller's database transaction.
 * Nothing else writes transactions.status.
 */

import type { Tx } from '../../db/client';
import { transactions } from '../../db/schema/transactions';
import { emitEvent } from '../../outbox/emit';
import type { EventBus } from '../../platform/events';
import { compareAndSet, machineTable, transition } from '../../platform/machine';
import { conflict } from '../../shared/errors';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import {
  type Decision,
  decideProviderStatus,
  findTransition,
  isTerminal,
  LATE_SUCCESS_REASON,
  type ReconciliationState,
  type TransactionStatus,
  transactionMachine,
} from './payments.machine';
import { PaymentMessages } from './payments.messages';
import {
  findTransactionById,
  insertStatusEvent,
  type StatusEventRow,
  type TransactionRow,
  transactionCoreFields,
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
  /** The network's trace id of an unsuccessful outcome (e.g. Token.io `tokenTraceId`): added to the timeline's reason. */
  networkTrace?: string | null;
}

/** The timeline's reason with the network's trace id, when there is one. */
export function withTrace(reason: string | null, trace: string | null | undefined): string | null {
  if (!trace) return reason;
  return `${reason ?? 'Payment network error'} (network trace ${trace})`;
}

/** A move of the status also tells the features that listen (the app's event bus). */
export interface MoveContext extends ChangeContext {
  events: EventBus;
}

const transactionTable = machineTable(transactionMachine, transactions, {
  conflict: PaymentMessages.transactionChangedMeanwhile,
});
/** A writer that keeps losing the compare-and-set this often gives up with the table's 409. */
const DECIDE_ATTEMPTS = 5;

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
  previous: TransactionStatus,
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
  from: TransactionStatus,
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
    reason: withTrace(extra.reason, ctx.networkTrace),
    refId: t.refId,
    actorType: ctx.actor.actorType,
    actorAccountId: ctx.actor.actorType === 'service_internal' ? null : ctx.actor.actorAccountId,
    occurredAt: ctx.occurredAt,
  };
}

type MoveOf = { from: TransactionStatus; to: TransactionStatus };

/**
 * The effects of a coarse move, in order: the timeline row, payment.status_changed and the
 * in-process reactions to it, the activity entry. `out.statusEvent` is the timeline row once written.
 */
function moveEffects(
  tx: Tx,
  ctx: MoveContext,
  providerStatus: string | null,
  reasonOf: (from: TransactionStatus) => string,
) {
  const out = { statusEvent: null as StatusEventRow | null };
  const hooks = {
    before: async (u: TransactionRow, { from }: MoveOf) => {
      const entry = { kind: 'transition', providerStatus, reason: reasonOf(from) };
      out.statusEvent = await insertStatusEvent(tx, timelineRow(u, from, ctx, entry));
    },
    event: async (u: TransactionRow, { from, to }: MoveOf) => {
      await emitStatusChanged(tx, u, from, out.statusEvent!, ctx.actor);
      await ctx.events.emit(tx, 'payments.status_changed', { transaction: u, from, to, at: ctx.occurredAt });
    },
    activity: (u: TransactionRow, { from, to }: MoveOf) =>
      statusActivity(tx, u, from, to, ctx, reasonOf(from)),
  };
  return { out, hooks };
}

/**
 * Applies a detail code reported by the payment network (notification, refresh poll or sandbox
 * simulate) to a transaction. Decides again when a concurrent writer moved the row first; one that
 * keeps losing answers the table's 409.
 */
export async function applyProviderStatus(
  tx: Tx,
  transactionId: string,
  code: string,
  ctx: MoveContext,
): Promise<ChangeResult> {
  for (let attempt = 0; attempt < DECIDE_ATTEMPTS; attempt++) {
    const current = await findTransactionById(tx, transactionId);
    if (!current) throw new Error(`transaction ${transactionId} vanished`);
    const from = current.status;
    const d = decideProviderStatus(from, code, current);
    const transferId = ctx.transferId && !isTerminal(from) ? ctx.transferId : current.transferId;
    const base = { updatedAt: ctx.now, transferId };
    if (d.kind === 'transition') {
      const fx = moveEffects(tx, ctx, d.providerStatus, () => d.reason);
      const moved = await transition(tx, transactionTable, current, d.trigger, {
        set: {
          ...base,
          providerStatus: d.providerStatus,
          reconciliationState: d.reconciliation,
          statusReason: d.reason,
          completedAt: isTerminal(d.to) ? ctx.occurredAt : null,
        },
        lost: 'null',
        ...fx.hooks,
      });
      if (!moved) continue; // someone else moved it: decide again on the fresh row
      if (d.reconciliation === 'manual_review_required') await raiseReview(tx, moved, d.reason, ctx.now);
      return { transaction: moved, decision: d.kind, statusEvent: fx.out.statusEvent };
    }
    let updated: TransactionRow | null;
    switch (d.kind) {
      case 'manual_review':
        updated = await compareAndSet(tx, transactionTable, current, {
          ...base,
          providerStatus: d.providerStatus ?? current.providerStatus,
          reconciliationState: d.reconciliation,
          statusReason: d.reason,
        });
        break;
      case 'detail':
        updated = await compareAndSet(tx, transactionTable, current, {
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
    if (!updated) continue;
    const ev = await insertStatusEvent(
      tx,
      timelineRow(updated, from, ctx, { kind: d.kind, providerStatus: d.providerStatus, reason: d.reason }),
    );
    if (d.emitEvent) await emitStatusChanged(tx, updated, from, ev, ctx.actor);
    if (d.kind === 'manual_review' && d.reason === LATE_SUCCESS_REASON)
      await raiseReview(tx, updated, d.reason, ctx.now);
    return { transaction: updated, decision: d.kind, statusEvent: ev };
  }
  throw conflict(PaymentMessages.transactionChangedMeanwhile);
}

/**
 * Money may have moved on a payment that did not succeed (no final status, a late completion): the
 * merchant's owners and operations hear of it besides the payment.status_changed event, in the
 * same transaction.
 */
async function raiseReview(tx: Tx, t: TransactionRow, reason: string, at: Date): Promise<void> {
  await notify(tx, {
    clientId: t.clientId,
    category: 'payments',
    severity: 'critical',
    title: `Payment ${t.refId} needs a manual review`,
    body: `Payment ${t.id} (${t.amount} ${t.currency}, ${t.status}): ${reason}. Check with the bank before acting on it.`,
    item: null,
    audience: { roles: OWNER_AND_OPERATIONS },
    at,
  });
}

/**
 * An internal move (cancel by payer/merchant, link expiry). Returns null when the table does not
 * allow it from the current status (e.g. the transaction is already terminal); decides again when
 * a concurrent writer moved the row first.
 */
export async function moveTransaction(
  tx: Tx,
  transactionId: string,
  to: TransactionStatus,
  providerStatus: string,
  ctx: MoveContext,
  reasonOverride?: string,
  /** Money may have moved: the move holds the payment for manual review (state, event, notification). */
  opts: { review?: boolean } = {},
): Promise<ChangeResult | null> {
  const current = await findTransactionById(tx, transactionId);
  if (!current) return null;
  const reasonOf = (from: TransactionStatus) => reasonOverride ?? findTransition(from, to)!.reason;
  const fx = moveEffects(tx, ctx, providerStatus, reasonOf);
  const moved = await transition(
    tx,
    transactionTable,
    current,
    (cur) => transactionMachine.triggerFor(cur.status, to),
    {
      set: ({ from }) => ({
        providerStatus,
        reconciliationState: (opts.review ? 'manual_review_required' : 'none') satisfies ReconciliationState,
        statusReason: reasonOf(from),
        updatedAt: ctx.now,
        completedAt: isTerminal(to) ? ctx.occurredAt : null,
      }),
      lost: { reload: () => findTransactionById(tx, transactionId) },
      ...fx.hooks,
    },
  );
  if (moved && opts.review) await raiseReview(tx, moved, reasonOf(current.status), ctx.now);
  return moved ? { transaction: moved, decision: 'transition', statusEvent: fx.out.statusEvent } : null;
}

/**
 * Holds a payment that has not ended for manual review without moving its status: the network may
 * have the payment although we cannot see it (e.g. a creation whose answer was lost and that a
 * look-up does not find). reconciliation_state manual_review_required, a `manual_review` timeline
 * entry, payment.status_changed with previous == current, and the critical notification.
 */
export async function holdForReview(
  tx: Tx,
  transactionId: string,
  reason: string,
  ctx: MoveContext,
): Promise<TransactionRow | null> {
  for (let attempt = 0; attempt < DECIDE_ATTEMPTS; attempt++) {
    const current = await findTransactionById(tx, transactionId);
    if (!current || isTerminal(current.status)) return null;
    if (current.reconciliationState === 'manual_review_required') return current;
    const updated = await compareAndSet(tx, transactionTable, current, {
      updatedAt: ctx.now,
      reconciliationState: 'manual_review_required',
      statusReason: reason,
    });
    if (!updated) continue;
    const ev = await insertStatusEvent(
      tx,
      timelineRow(updated, current.status, ctx, { kind: 'manual_review', providerStatus: null, reason }),
    );
    await emitStatusChanged(tx, updated, current.status, ev, ctx.actor);
    await raiseReview(tx, updated, reason, ctx.now);
    return updated;
  }
  throw conflict(PaymentMessages.transactionChangedMeanwhile);
}

/** A timeline entry that changes no status (creation, session restart). */
export async function recordTimelineEntry(
  tx: Tx,
  t: TransactionRow,
  from: TransactionStatus | null,
  ctx: ChangeContext,
  entry: { kind: string; providerStatus: string | null; reason: string | null },
): Promise<StatusEventRow> {
  return insertStatusEvent(tx, { ...timelineRow(t, from ?? t.status, ctx, entry), fromStatus: from });
}

/** `transaction.<to>` in the activity log, e.g. transaction.canceled, transaction.success. */
async function statusActivity(
  tx: Tx,
  t: TransactionRow,
  from: TransactionStatus,
  to: TransactionStatus,
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
