/**
 * The worker's queries: claim due deliveries (FOR UPDATE SKIP LOCKED + lease), load signing
 * secrets, record an attempt. Each runs in its own short transaction; no HTTP inside any of them.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, rowsOf } from '../db/client';
import { clients, webhookDeliveries } from '../db/schema/index';
import type { DeliveryStatus } from '../modules/webhooks/webhooks.machine';
import { decrypt, encrypt } from '../shared/crypto';
import { newId, randomToken } from '../shared/ids';

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  clientId: string;
  destinationId: string | null;
  eventType: string;
  url: string;
  body: string;
  status: 'pending' | 'retrying';
  attempts: number;
  cycleAttempts: number;
  leaseToken: string;
  /** Encrypted signing secret of the target; null for a deleted destination or a main webhook without one yet. */
  secretEnc: string | null;
}

interface ClaimRow {
  id: string;
  event_id: string;
  client_id: string;
  destination_id: string | null;
  event_type: string;
  url: string;
  body: string;
  status: 'pending' | 'retrying';
  attempts: number;
  cycle_attempts: number;
  lease_token: string;
  secret_enc: string | null;
}

const tsParam = (d: Date | null) => (d ? sql`${d.toISOString()}::timestamptz` : sql`null::timestamptz`);

export const newWebhookSecret = (): string => `whsec_${randomToken(32)}`;

/**
 * Claims up to `limit` due deliveries, oldest due first, in one statement: rows other workers hold
 * are skipped (FOR UPDATE SKIP LOCKED), URLs this process already saturates are excluded, and the
 * lease (locked_until + lease_token) makes a crashed worker's claims claimable again once it runs
 * out. The signing secret comes back with each row. Rows beyond a URL's free slots are released.
 */
export async function claimDueDeliveries(
  db: Db,
  opts: {
    now: Date;
    limit: number;
    leaseMs: number;
    /** The first configured delay: a delivery's first attempt of a cycle waits this long past its due time. */
    firstDelaySeconds: number;
    saturatedUrls: string[];
    saturatedClients: string[];
    freeSlotsForUrl: (url: string) => number;
    freeSlotsForClient: (clientId: string) => number;
  },
): Promise<{ claimed: ClaimedDelivery[]; released: number }> {
  if (opts.limit <= 0) return { claimed: [], released: 0 };
  const token = newId();
  const now = tsParam(opts.now);
  const due =
    opts.firstDelaySeconds > 0
      ? sql`next_attempt_at <= ${now} - (case when cycle_attempts = 0 then ${opts.firstDelaySeconds}::float8 else 0 end) * interval '1 second'`
      : sql`next_attempt_at <= ${now}`;
  const notSaturated =
    opts.saturatedUrls.length > 0
      ? sql`and url not in (${sql.join(
          opts.saturatedUrls.map((u) => sql`${u}`),
          sql`, `,
        )})`
      : sql``;
  const notSaturatedClient =
    opts.saturatedClients.length > 0
      ? sql`and client_id not in (${sql.join(
          opts.saturatedClients.map((c) => sql`${c}::uuid`),
          sql`, `,
        )})`
      : sql``;
  const res = await db.execute(sql`
    update webhook_deliveries d
       set locked_until = ${tsParam(new Date(opts.now.getTime() + opts.leaseMs))}, lease_token = ${token}::uuid
      from (select id from webhook_deliveries
             where status in ('pending', 'retrying') and ${due}
               and (locked_until is null or locked_until <= ${now}) ${notSaturated} ${notSaturatedClient}
             order by next_attempt_at, id
             limit ${opts.limit}
             for update skip locked) c
     where d.id = c.id
    returning d.id, d.event_id, d.client_id, d.destination_id, d.event_type, d.url, d.body, d.status,
              d.attempts, d.cycle_attempts, d.lease_token,
              case when d.destination_id is null
                   then (select webhook_secret_enc from clients where id = d.client_id)
                   else (select secret_enc from webhook_destinations where id = d.destination_id and deleted_at is null)
              end as secret_enc`);
  const rows = rowsOf<ClaimRow>(res);
  const takenUrl = new Map<string, number>();
  const takenClient = new Map<string, number>();
  const kept: ClaimedDelivery[] = [];
  const excess: string[] = [];
  for (const r of rows) {
    const n = takenUrl.get(r.url) ?? 0;
    const m = takenClient.get(r.client_id) ?? 0;
    if (n >= opts.freeSlotsForUrl(r.url) || m >= opts.freeSlotsForClient(r.client_id)) {
      excess.push(r.id);
      continue;
    }
    takenUrl.set(r.url, n + 1);
    takenClient.set(r.client_id, m + 1);
    kept.push({
      id: r.id,
      eventId: r.event_id,
      clientId: r.client_id,
      destinationId: r.destination_id,
      eventType: r.event_type,
      url: r.url,
      body: r.body,
      status: r.status,
      attempts: Number(r.attempts),
      cycleAttempts: Number(r.cycle_attempts),
      leaseToken: r.lease_token,
      secretEnc: r.secret_enc,
    });
  }
  if (excess.length > 0)
    await db
      .update(webhookDeliveries)
      .set({ lockedUntil: null, leaseToken: null })
      .where(and(inArray(webhookDeliveries.id, excess), eq(webhookDeliveries.leaseToken, token)));
  return { claimed: kept, released: excess.length };
}

/** The signing secret of a claimed delivery (creating the main webhook secret on first need); null when the destination is gone. */
export async function signingSecretOf(db: Db, key: Buffer, d: ClaimedDelivery): Promise<string | null> {
  if (d.secretEnc) return decrypt(key, d.secretEnc);
  if (d.destinationId) return null;
  return ensureMainWebhookSecret(db, key, d.clientId);
}

/**
 * Creates the client's main webhook secret when it has none yet and returns it (shown once, when
 * the webhook URL is first configured); null when a secret already exists.
 */
export async function createMainWebhookSecretIfAbsent(
  db: Db,
  key: Buffer,
  clientId: string,
): Promise<string | null> {
  const secret = newWebhookSecret();
  const rows = await db
    .update(clients)
    .set({ webhookSecretEnc: encrypt(key, secret) })
    .where(and(eq(clients.id, clientId), isNull(clients.webhookSecretEnc)))
    .returning({ id: clients.id });
  return rows.length > 0 ? secret : null;
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

/**
 * Writes the attempt and moves the delivery in one statement, compare-and-set on the lease; false
 * when the lease was lost (another worker took the delivery over): the attempt is then kept in
 * the history as `superseded` and the delivery is left to its current holder.
 */
export async function recordAttempt(db: DbOrTx, r: AttemptRecord): Promise<boolean> {
  const d = r.delivery;
  const res = await db.execute(sql`
    with moved as (
      update webhook_deliveries
         set status = ${r.status}, attempts = attempts + 1, cycle_attempts = cycle_attempts + 1,
             next_attempt_at = ${tsParam(r.nextAttemptAt)}, locked_until = null, lease_token = null,
             last_attempt_at = ${tsParam(r.startedAt)}, last_response_status = ${r.responseStatus}::int,
             last_error = ${r.error}::text,
             succeeded_at = ${tsParam(r.status === 'succeeded' ? r.now : null)}, updated_at = ${tsParam(r.now)}
       where id = ${d.id}::uuid and lease_token = ${d.leaseToken}::uuid and status in ('pending', 'retrying')
      returning attempts)
    insert into webhook_delivery_attempts
      (id, delivery_id, client_id, attempt, url, started_at, duration_ms, response_status, response_body, error,
       outcome, next_attempt_at)
    select ${newId()}::uuid, ${d.id}::uuid, ${d.clientId}::uuid,
           coalesce((select attempts from moved), ${d.attempts + 1}::int), ${d.url}, ${tsParam(r.startedAt)},
           ${r.durationMs}::int, ${r.responseStatus}::int, ${r.responseBody}::text, ${r.error}::text,
           case when exists (select 1 from moved) then ${r.status}::text else 'superseded' end,
           case when exists (select 1 from moved) then ${tsParam(r.nextAttemptAt)} else null end
    returning outcome`);
  return rowsOf<{ outcome: string }>(res)[0]?.outcome !== 'superseded';
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
