/**
 * The wallet ownership status machine. Every change of wallet_ownership_requests.status goes
 * through `moveOwnership` (the platform's `transition`), which also moves the wallet's
 * ownership_status, emits the `screening.wallet_ownership.status_changed` webhook event and the
 * in-process `screening.ownership_status_changed` event (ownership-events.service.ts), and records the
 * activity entry, all in the caller's transaction.
 */
import type { DbOrTx, Tx } from '../../db/client';
import {
  OWNERSHIP_METHODS,
  OWNERSHIP_STATUSES,
  type OwnershipMethod,
  type OwnershipStatus,
  walletOwnershipRequests,
} from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import type { EventBus } from '../../platform/events';
import { defineMachine, machineTable, transition } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { recordActivity } from '../activity/activity-writer.service';
import { ScreeningMessages } from './screening.messages';
import { updateWallet } from './screening.repo';

export { OWNERSHIP_METHODS, OWNERSHIP_STATUSES, type OwnershipMethod, type OwnershipStatus };

export const TERMINAL: readonly OwnershipStatus[] = ['verified', 'failed', 'expired', 'canceled'];

export type OwnershipRow = typeof walletOwnershipRequests.$inferSelect;

export const OWNERSHIP_TRANSITIONS = {
  /** A valid signature, a self declaration, or the exact deposit. */
  verify: { from: ['pending', 'verifying'], to: 'verified' },
  /** The Satoshi test starts: the deposit address is watched. */
  start_deposit: { from: ['pending'], to: 'verifying' },
  /** Signature attempts exhausted, a wrong deposit, or the deposit window closed. */
  fail: { from: ['pending', 'verifying'], to: 'failed' },
  expire: { from: ['pending', 'verifying'], to: 'expired' },
  cancel: { from: ['pending', 'verifying'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly OwnershipStatus[]; to: OwnershipStatus }>;
export type OwnershipTrigger = keyof typeof OWNERSHIP_TRANSITIONS;

/** A finished request names its status; only a request still waiting for a proof may start a deposit. */
export const ownershipMachine = defineMachine({
  name: 'wallet ownership request',
  statuses: OWNERSHIP_STATUSES,
  transitions: OWNERSHIP_TRANSITIONS,
  terminal: TERMINAL,
  refused: (_t, from) =>
    badRequest(
      TERMINAL.includes(from)
        ? ScreeningMessages.terminal(from)
        : ScreeningMessages.methodNotAllowed('satoshi_test'),
    ),
});

/** A proof is taken only while the request waits for one (a Satoshi test in `verifying` waits for the chain). */
export const awaitsProof = (s: OwnershipStatus) => s === 'pending';

const TRIGGER_TO: Record<Exclude<OwnershipStatus, 'pending'>, OwnershipTrigger> = {
  verified: 'verify',
  verifying: 'start_deposit',
  failed: 'fail',
  expired: 'expire',
  canceled: 'cancel',
};

export const canMove = (from: OwnershipStatus, to: OwnershipStatus) =>
  ownershipMachine.triggerFor(from, to) !== null;

const ownershipTable = machineTable(ownershipMachine, walletOwnershipRequests, {
  conflict: ScreeningMessages.changedMeanwhile,
});

export function moveOwnership(
  tx: Tx,
  req: OwnershipRow,
  to: Exclude<OwnershipStatus, 'pending'>,
  ctx: { now: Date; events: EventBus; set?: Partial<OwnershipRow> },
): Promise<OwnershipRow> {
  return transition(tx, ownershipTable, req, TRIGGER_TO[to], {
    set: { ...ctx.set, updatedAt: ctx.now, ...(to === 'verified' ? { verifiedAt: ctx.now } : {}) },
    // The wallet follows: verified and failed are recorded; expiry and cancel restore what it was before.
    before: async (r) => {
      if (to === 'verified')
        await updateWallet(tx, r.walletId, {
          ownershipStatus: 'verified',
          ownershipMethod: r.method,
          ownershipVerifiedAt: ctx.now,
          updatedAt: ctx.now,
        });
      else if (to === 'failed')
        await updateWallet(tx, r.walletId, { ownershipStatus: 'failed', updatedAt: ctx.now });
      else if (to === 'expired' || to === 'canceled')
        await updateWallet(tx, r.walletId, {
          ownershipStatus: r.previousOwnershipStatus,
          updatedAt: ctx.now,
        });
    },
    event: async (r, { from }) => {
      await emitOwnershipEvent(tx, r, from, ctx.now);
      await ctx.events.emit(tx, 'screening.ownership_status_changed', { request: r, at: ctx.now });
    },
    activity: (r, { from }) =>
      recordActivity(tx, {
        clientId: r.clientId,
        action: `wallet_ownership_request.${to}`,
        at: ctx.now,
        target: { type: 'wallet_ownership_request', id: r.id, label: `${r.chain} ${r.address}` },
        changes: { status: { from, to } },
        metadata: { method: r.method, failure_reason: r.failureReason },
      }),
  });
}

export async function emitOwnershipEvent(
  tx: DbOrTx,
  r: OwnershipRow,
  from: OwnershipStatus | null,
  now: Date,
) {
  await emitEvent(tx, {
    clientId: r.clientId,
    type: 'screening.wallet_ownership.status_changed',
    data: {
      request_id: r.id,
      wallet_id: r.walletId,
      chain: r.chain,
      address: r.address,
      method: r.method,
      previous_status: from,
      current_status: r.status,
      user_id: r.userId,
      business_customer_id: r.businessCustomerId,
      failure_reason: r.failureReason,
    },
    occurredAt: now,
    dedupKey: `wallet-ownership:${r.id}:${r.status}:${newId()}`,
  });
}
