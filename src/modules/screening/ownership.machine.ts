/**
 * The wallet ownership status machine. Every change of wallet_ownership_requests.status goes through
 * `moveOwnership`, which also moves the wallet's ownership_status, emits the
 * `screening.wallet_ownership.status_changed` webhook event and the in-process
 * `screening.ownership_status_changed` event (ownership-events.ts), and records the activity entry, all
 * in the caller's transaction.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client';
import { walletOwnershipRequests } from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import type { EventBus } from '../../platform/events';
import { newId } from '../../shared/ids';
import { recordActivity } from '../activity/activity.writer';
import { OWNERSHIP_METHODS, OWNERSHIP_STATUSES } from './ownership-statuses';
import { updateWallet } from './screening.repo';

export { OWNERSHIP_METHODS, OWNERSHIP_STATUSES };

export type OwnershipStatus = (typeof OWNERSHIP_STATUSES)[number];
export type OwnershipMethod = (typeof OWNERSHIP_METHODS)[number];
export const TERMINAL: readonly OwnershipStatus[] = ['verified', 'failed', 'expired', 'canceled'];

export type OwnershipRow = typeof walletOwnershipRequests.$inferSelect;

const ALLOWED: Record<OwnershipStatus, readonly OwnershipStatus[]> = {
  pending: ['verified', 'verifying', 'failed', 'expired', 'canceled'],
  verifying: ['verified', 'failed', 'expired', 'canceled'],
  verified: [],
  failed: [],
  expired: [],
  canceled: [],
};

export const canMove = (from: OwnershipStatus, to: OwnershipStatus) => ALLOWED[from].includes(to);

export async function moveOwnership(
  tx: Tx,
  req: OwnershipRow,
  to: OwnershipStatus,
  ctx: { now: Date; events: EventBus; set?: Partial<OwnershipRow> },
): Promise<OwnershipRow> {
  const from = req.status as OwnershipStatus;
  if (!canMove(from, to)) throw new Error(`ownership transition ${from} -> ${to} not allowed`);
  const [updated] = await tx
    .update(walletOwnershipRequests)
    .set({
      ...ctx.set,
      status: to,
      updatedAt: ctx.now,
      ...(to === 'verified' ? { verifiedAt: ctx.now } : {}),
    })
    .where(eq(walletOwnershipRequests.id, req.id))
    .returning();
  const r = updated!;
  // The wallet follows: verified and failed are recorded; expiry and cancel restore what it was before.
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
    await updateWallet(tx, r.walletId, { ownershipStatus: r.previousOwnershipStatus, updatedAt: ctx.now });
  await emitOwnershipEvent(tx, r, from, ctx.now);
  await ctx.events.emit(tx, 'screening.ownership_status_changed', { request: r, at: ctx.now });
  await recordActivity(tx, {
    clientId: r.clientId,
    action: `wallet_ownership_request.${to}`,
    at: ctx.now,
    target: { type: 'wallet_ownership_request', id: r.id, label: `${r.chain} ${r.address}` },
    changes: { status: { from, to } },
    metadata: { method: r.method, failure_reason: r.failureReason },
  });
  return r;
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
