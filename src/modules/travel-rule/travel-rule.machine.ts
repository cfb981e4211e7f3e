/**
 * The travel-rule transfer status machine: every row of the table, and the one place a transfer
 * changes status. Each move (the platform's `transition`) writes, in the caller's transaction, the
 * row by compare-and-set, the `travel_rule.transfer.status_changed` event, an activity entry and (for
 * needs_repair, awaiting_review, counterparty_not_reachable and rejected) notifications to owner and
 * operations.
 */
import type { DbOrTx } from '../../db/client';
import { TRANSFER_STATUSES, type TransferStatus, travelRuleTransfers } from '../../db/schema/travel-rule';
import { emitEvent } from '../../outbox/emit';
import { cancelTimer, timerRef } from '../../platform/jobs/index';
import { defineMachine, machineTable, transition } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_AND_OPERATIONS } from '../notifications/notify.service';
import { TravelRuleMessages } from './travel-rule.messages';

export { TRANSFER_STATUSES, type TransferStatus };

export const TERMINAL: readonly TransferStatus[] = [
  'not_required',
  'rejected',
  'completed',
  'canceled',
  'expired',
];

export type TransferRow = typeof travelRuleTransfers.$inferSelect;

/**
 * The statuses that wait for an answer until `expires_at` (the counterparty's, or, inbound, the
 * client's review): the only ones the expiry timer has work in.
 */
export const AWAITING_ANSWER: readonly TransferStatus[] = [
  'awaiting_counterparty',
  'needs_repair',
  'awaiting_review',
];

/**
 * The response deadline's timer (handled in expiry.service.ts): set where a deadline is set, and
 * removed here, in the move's transaction, once the transfer leaves the statuses awaiting an answer.
 */
export const TRANSFER_EXPIRY = timerRef<{ transferId: string; clientId: string }>({
  kind: 'travel_rule.transfer_expiry',
  keyOf: (p) => `travel-rule-transfer:${p.transferId}`,
});

/** The triggers of the status table and the moves each allows (from -> to). */
export type Trigger =
  | 'delivered'
  | 'unhosted'
  | 'unreachable'
  | 'counterparty_accepted'
  | 'counterparty_repair'
  | 'counterparty_rejected'
  | 'repaired'
  | 'expire'
  | 'ownership_verified'
  | 'ownership_failed'
  | 'proceed'
  | 'review_accept'
  | 'review_reject'
  | 'tx_hash'
  | 'cancel';

const NON_TERMINAL = TRANSFER_STATUSES.filter((s) => !TERMINAL.includes(s));

export const TRANSITIONS: Record<Trigger, { from: readonly TransferStatus[]; to: TransferStatus }> = {
  delivered: { from: ['pending'], to: 'awaiting_counterparty' },
  unhosted: { from: ['pending'], to: 'awaiting_ownership' },
  unreachable: { from: ['pending'], to: 'counterparty_not_reachable' },
  counterparty_accepted: { from: ['awaiting_counterparty'], to: 'accepted' },
  counterparty_repair: { from: ['awaiting_counterparty'], to: 'needs_repair' },
  counterparty_rejected: { from: ['awaiting_counterparty'], to: 'rejected' },
  repaired: { from: ['needs_repair'], to: 'awaiting_counterparty' },
  expire: { from: ['awaiting_counterparty', 'needs_repair', 'awaiting_review'], to: 'expired' },
  ownership_verified: { from: ['awaiting_ownership'], to: 'accepted' },
  ownership_failed: { from: ['awaiting_ownership'], to: 'rejected' },
  proceed: { from: ['counterparty_not_reachable'], to: 'accepted' },
  review_accept: { from: ['awaiting_review'], to: 'accepted' },
  review_reject: { from: ['awaiting_review'], to: 'rejected' },
  tx_hash: { from: ['accepted'], to: 'completed' },
  cancel: { from: NON_TERMINAL, to: 'canceled' },
};

/** Client actions the status does not allow answer the 400 naming the status. */
export const transferMachine = defineMachine({
  name: 'travel-rule transfer',
  statuses: TRANSFER_STATUSES,
  transitions: TRANSITIONS,
  terminal: TERMINAL,
  refused: (_t, from) => badRequest(TravelRuleMessages.badState(from)),
});

export const isTerminal = transferMachine.isTerminal;
export const allows = transferMachine.can;

const transferTable = machineTable(transferMachine, travelRuleTransfers, {
  conflict: TravelRuleMessages.changedMeanwhile,
});

export interface Actor {
  type: 'client_user' | 'client_api' | null;
  accountId: string | null;
}
export const AUTOMATIC: Actor = { type: null, accountId: null };

const NOTIFY: Partial<Record<TransferStatus, { title: string; severity: 'warning' | 'critical' }>> = {
  needs_repair: { title: 'Travel-rule transfer needs repair', severity: 'warning' },
  awaiting_review: { title: 'Inbound travel-rule transfer awaits review', severity: 'warning' },
  counterparty_not_reachable: { title: 'Travel-rule counterparty not reachable', severity: 'warning' },
  rejected: { title: 'Travel-rule transfer rejected', severity: 'warning' },
};

const label = (t: Pick<TransferRow, 'clientReference' | 'amount' | 'asset' | 'id'>) =>
  `${t.clientReference ?? t.id} (${t.amount} ${t.asset})`;

/** The event, activity entry and notification of a transfer that reached `t.status` (from `from`). */
export async function recordTransferStatus(
  tx: DbOrTx,
  t: TransferRow,
  from: TransferStatus | null,
  now: Date,
  actor: Actor,
  action: string,
) {
  await emitEvent(tx, {
    clientId: t.clientId,
    type: 'travel_rule.transfer.status_changed',
    data: {
      transfer_id: t.id,
      direction: t.direction,
      client_reference: t.clientReference,
      asset: t.asset,
      chain: t.chain,
      amount: t.amount,
      previous_status: from,
      current_status: t.status,
      status_reason: t.statusReason,
      counterparty_vasp_name:
        t.direction === 'inbound' ? (t.originatorVasp?.name ?? null) : (t.beneficiaryVasp?.name ?? null),
      repair_fields: t.repairFields ?? null,
      tx_hash: t.txHash,
      actor_type: actor.type,
      actor_account_id: actor.accountId,
    },
    occurredAt: now,
    dedupKey: `travel-rule:${t.id}:${t.status}:${newId()}`,
  });
  await recordActivity(tx, {
    clientId: t.clientId,
    action,
    at: now,
    target: { type: 'travel_rule_transfer', id: t.id, label: label(t) },
    ...(from ? { changes: { status: { from, to: t.status } } } : {}),
    metadata: { direction: t.direction, status: t.status, status_reason: t.statusReason },
  });
  const n = NOTIFY[t.status];
  if (n && from !== t.status)
    await notify(tx, {
      clientId: t.clientId,
      category: 'travel_rule',
      severity: n.severity,
      title: n.title,
      body: `${label(t)}: ${t.statusReason ?? t.status.replace(/_/g, ' ')}`,
      item: { type: 'travel_rule_transfer', id: t.id },
      audience: { roles: OWNER_AND_OPERATIONS },
      at: now,
    });
}

/**
 * Moves the (locked) transfer by `trigger`; returns null when the current status does not allow it
 * (the caller answers 400 or ignores a late notification).
 */
export async function moveTransfer(
  tx: DbOrTx,
  t: TransferRow,
  trigger: Trigger,
  ctx: { now: Date; actor?: Actor; set?: Partial<TransferRow> },
): Promise<TransferRow | null> {
  if (!allows(trigger, t.status)) return null;
  return transition(tx, transferTable, t, trigger, {
    set: ({ to }) => ({
      ...ctx.set,
      updatedAt: ctx.now,
      ...(to === 'accepted' ? { acceptedAt: ctx.now } : {}),
      ...(to === 'completed' ? { completedAt: ctx.now } : {}),
    }),
    event: (r, { from, to }) =>
      recordTransferStatus(tx, r, from, ctx.now, ctx.actor ?? AUTOMATIC, `travel_rule_transfer.${to}`),
    // Answered, accepted or final: the deadline no longer applies, so its timer goes with the move
    // (a timer already running is left to finish and finds nothing to do).
    after: async (r, { from, to }) => {
      if (AWAITING_ANSWER.includes(from) && !AWAITING_ANSWER.includes(to))
        await cancelTimer(tx, TRANSFER_EXPIRY, { transferId: r.id, clientId: r.clientId });
    },
  });
}
