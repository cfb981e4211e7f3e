/**
 * Idempotency of payment creation, held by the database (unique (client_id, idempotency_key)),
 * so it holds across processes and API nodes: the first request inserts a `processing` claim,
 * duplicates read it. A failed creation deletes its claim so the client can retry.
 */
import { and, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { paymentIdempotencyKeys } from '../../db/schema/index';
import { addSeconds } from '../../shared/clock';
import { badRequest, conflict } from '../../shared/errors';
import { M } from '../../shared/messages';

export const IDEMPOTENCY_KEY_MAX = 255;

export function requireIdempotencyKey(header: string | string[] | undefined): string {
  const key = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (key === '') throw badRequest(M.idempotencyKeyEmpty);
  return key;
}

export type Claim = { kind: 'claimed'; claimId: string } | { kind: 'replay'; transactionId: string };

/** `api`: keys merchants send; `platform`: keys the platform derives (bulk:…, schedule:…, contract:…). */
export type KeyScope = 'api' | 'platform';

/**
 * Claims the key, or tells what the earlier request with this key became.
 * Throws 409 for a different payload or a duplicate still in flight.
 */
export async function claimIdempotencyKey(
  db: DbOrTx,
  clientId: string,
  key: string,
  fingerprint: string,
  now: Date,
  staleSeconds: number,
  scope: KeyScope = 'api',
): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const [inserted] = await db
      .insert(paymentIdempotencyKeys)
      .values({ clientId, idempotencyKey: key, scope, fingerprint, state: 'processing', createdAt: now })
      .onConflictDoNothing()
      .returning({ id: paymentIdempotencyKeys.id });
    if (inserted) return { kind: 'claimed', claimId: inserted.id };
    const [existing] = await db
      .select()
      .from(paymentIdempotencyKeys)
      .where(
        and(
          eq(paymentIdempotencyKeys.clientId, clientId),
          eq(paymentIdempotencyKeys.scope, scope),
          eq(paymentIdempotencyKeys.idempotencyKey, key),
        ),
      );
    if (!existing) continue; // the earlier attempt failed and released the key: claim again
    if (existing.fingerprint !== fingerprint) throw conflict(M.idempotencyPayloadMismatch);
    if (existing.state === 'completed' && existing.transactionId)
      return { kind: 'replay', transactionId: existing.transactionId };
    // A claim left by a crashed request is released after a grace period.
    const released = await db
      .delete(paymentIdempotencyKeys)
      .where(
        and(
          eq(paymentIdempotencyKeys.id, existing.id),
          eq(paymentIdempotencyKeys.state, 'processing'),
          lt(paymentIdempotencyKeys.createdAt, addSeconds(now, -staleSeconds)),
        ),
      )
      .returning({ id: paymentIdempotencyKeys.id });
    if (released.length === 0) throw conflict(M.idempotencyInProgress);
  }
  throw conflict(M.idempotencyInProgress);
}

/**
 * Marks the claim completed. False when the claim is gone (released as stale and taken over by
 * another request): the caller must then roll back, so one key never yields two payments.
 */
export async function completeIdempotencyClaim(
  db: DbOrTx,
  claimId: string,
  transactionId: string,
  now: Date,
): Promise<boolean> {
  const done = await db
    .update(paymentIdempotencyKeys)
    .set({ state: 'completed', transactionId, completedAt: now })
    .where(and(eq(paymentIdempotencyKeys.id, claimId), eq(paymentIdempotencyKeys.state, 'processing')))
    .returning({ id: paymentIdempotencyKeys.id });
  return done.length === 1;
}

export async function releaseIdempotencyClaim(db: DbOrTx, claimId: string) {
  await db
    .delete(paymentIdempotencyKeys)
    .where(and(eq(paymentIdempotencyKeys.id, claimId), eq(paymentIdempotencyKeys.state, 'processing')));
}
