/**
 * The worker's queries: claim due deliveries (FOR UPDATE SKIP LOCKED + lease), load signing
 * secrets, record an attempt. Each runs in its own short transaction; no HTTP inside any of them.
 */
import { and, asc, eq, inArray, isNull, lte, notInArray, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { clients, webhookDeliveries, webhookDeliveryAttempts, webhookDestinations } from '../db/schema/index';
import type { DeliveryStatus } from '../modules/webhooks/webhooks.machine';
import { decrypt, encrypt } from '../shared/crypto';
import { newId, randomToken } from '../shared/ids';

export type ClaimedDelivery = typeof webhookDeliveries.$inferSelect & { leaseToken: string };

export const newWebhookSecret = (): string => `whsec_${randomToken(32)}`;

const ACTIVE = sql`${webhookDeliveries.status} in ('pending', 'retrying')`;

/** New deliveries get their first due time (first configured delay) when that delay is not zero. */
export async function scheduleNewDeliveries(db: Db, now: Date, firstDelaySeconds: number): Promise<void> {
  if (firstDelaySeconds <= 0) return;
  await db
    .update(webhookDeliveries)
    .set({ nextAttemptAt: new Date(now.getTime() + firstDelaySeconds * 1000) })
    .where(and(eq(webhookDeliveries.status, 'pending'), isNull(webhookDeliveries.nextAttemptAt)));
}

/**
 * Claims up to `limit` due deliveries, oldest due first, skipping rows other workers hold and
 * URLs this process already saturates; at most `perUrl(url)` rows per URL. The lease makes a
 * crashed worker's claims claimable again once it has run out.
 */
export async function claimDueDeliveries(
  db: Db,
  opts: {
    now: Date;
    limit: number;
    leaseMs: number;
    firstDelayZero: boolean;
    saturatedUrls: string[];
    freeSlotsForUrl: (url: string) => number;
  },
): Promise<ClaimedDelivery[]> {
  if (opts.limit <= 0) return [];
  const token = newId();
  const leaseUntil = new Date(opts.now.getTime() + opts.leaseMs);
  return db.transaction(async (tx) => {
    const due = opts.firstDelayZero
      ? or(isNull(webhookDeliveries.nextAttemptAt), lte(webhookDeliveries.nextAttemptAt, opts.now))
      : lte(webhookDeliveries.nextAttemptAt, opts.now);
    const conds = [
      ACTIVE,
      due,
      or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, opts.now)),
    ];
    if (opts.saturatedUrls.length > 0) conds.push(notInArray(webhookDeliveries.url, opts.saturatedUrls));
    const candidates = await tx
      .select({ id: webhookDeliveries.id, url: webhookDeliveries.url })
      .from(webhookDeliveries)
      .where(and(...conds))
      .orderBy(sql`${webhookDeliveries.nextAttemptAt} asc nulls first`, asc(webhookDeliveries.id))
      .limit(opts.limit * 3)
      .for('update', { skipLocked: true });
    const taken = new Map<string, number>();
    const ids: string[] = [];
    for (const c of candidates) {
      if (ids.length >= opts.limit) break;
      const n = taken.get(c.url) ?? 0;
      if (n >= opts.freeSlotsForUrl(c.url)) continue;
      taken.set(c.url, n + 1);
      ids.push(c.id);
    }
    if (ids.length === 0) return [];
    const rows = await tx
      .update(webhookDeliveries)
      .set({ lockedUntil: leaseUntil, leaseToken: token })
      .where(inArray(webhookDeliveries.id, ids))
      .returning();
    return rows as ClaimedDelivery[];
  });
}

export interface SigningSecrets {
  main: Map<string, string>;
  destinations: Map<string, { secret: string; deleted: boolean }>;
}

/** Signing secrets of a batch; generates the main webhook secret of a client that has none yet. */
export async function loadSigningSecrets(
  db: Db,
  key: Buffer,
  batch: readonly ClaimedDelivery[],
): Promise<SigningSecrets> {
  const clientIds = [...new Set(batch.filter((d) => !d.destinationId).map((d) => d.clientId))];
  const destIds = [...new Set(batch.map((d) => d.destinationId).filter((x): x is string => !!x))];
  const main = new Map<string, string>();
  const destinations = new Map<string, { secret: string; deleted: boolean }>();
  if (clientIds.length > 0) {
    const rows = await db
      .select({ id: clients.id, enc: clients.webhookSecretEnc })
      .from(clients)
      .where(inArray(clients.id, clientIds));
    for (const r of rows) {
      if (r.enc) main.set(r.id, decrypt(key, r.enc));
      else main.set(r.id, await ensureMainWebhookSecret(db, key, r.id));
    }
  }
  if (destIds.length > 0) {
    const rows = await db
      .select({
        id: webhookDestinations.id,
        enc: webhookDestinations.secretEnc,
        deletedAt: webhookDestinations.deletedAt,
      })
      .from(webhookDestinations)
      .where(inArray(webhookDestinations.id, destIds));
    for (const r of rows)
      destinations.set(r.id, { secret: decrypt(key, r.enc), deleted: r.deletedAt !== null });
  }
  return { main, destinations };
}

/** The client's main webhook secret, created on first need (race-safe: the first writer wins). */
export async function ensureMainWebhookSecret(db: Db, key: Buffer, clientId: string): Promise<string> {
  await db
    .update(clients)
    .set({ webhookSecretEnc: encrypt(key, newWebhookSecret()) })
    .where(and(eq(clients.id, clientId), isNull(clients.webhookSecretEnc)));
  const [row] = await db
    .select({ enc: clients.webhookSecretEnc })
    .from(clients)
    .where(eq(clients.id, clientId));
  return decrypt(key, row!.enc!);
}

export interface AttemptRecord {
  delivery: ClaimedDelivery;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  now: Date;
}

/** Writes the attempt and moves the delivery, compare-and-set on the lease; false when the lease was lost. */
export async function recordAttempt(db: Db, r: AttemptRecord): Promise<boolean> {
  const d = r.delivery;
  return db.transaction(async (tx) => {
    const moved = await tx
      .update(webhookDeliveries)
      .set({
        status: r.status,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        cycleAttempts: sql`${webhookDeliveries.cycleAttempts} + 1`,
        nextAttemptAt: r.nextAttemptAt,
        lockedUntil: null,
        leaseToken: null,
        lastAttemptAt: r.startedAt,
        lastResponseStatus: r.responseStatus,
        lastError: r.error,
        succeededAt: r.status === 'succeeded' ? r.now : null,
        updatedAt: r.now,
      })
      .where(
        and(
          eq(webhookDeliveries.id, d.id),
          eq(webhookDeliveries.leaseToken, d.leaseToken),
          inArray(webhookDeliveries.status, ['pending', 'retrying']),
        ),
      )
      .returning({ attempts: webhookDeliveries.attempts });
    const attemptNo = moved[0]?.attempts ?? d.attempts + 1;
    await tx.insert(webhookDeliveryAttempts).values({
      deliveryId: d.id,
      clientId: d.clientId,
      attempt: attemptNo,
      url: d.url,
      startedAt: r.startedAt,
      durationMs: r.durationMs,
      responseStatus: r.responseStatus,
      responseBody: r.responseBody,
      error: r.error,
      outcome: moved.length > 0 ? r.status : 'superseded',
      nextAttemptAt: moved.length > 0 ? r.nextAttemptAt : null,
    });
    return moved.length > 0;
  });
}

/** A delivery whose destination was deleted: dead_letter without sending. */
export async function abandonDelivery(db: Db, d: ClaimedDelivery, now: Date, reason: string): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({
      status: 'dead_letter',
      lockedUntil: null,
      leaseToken: null,
      nextAttemptAt: null,
      lastError: reason,
      updatedAt: now,
    })
    .where(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.leaseToken, d.leaseToken)));
}
