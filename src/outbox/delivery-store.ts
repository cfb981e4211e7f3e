/**
 * The worker's queries: claim due deliveries (FOR UPDATE SKIP LOCKED + lease), load signing
 * secrets, record an attempt. Each runs in its own short transaction; no HTTP inside any of them.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { type Db, type DbOrTx, rowsOf } from '../db/client';
import { clients, webhookDeliveries } from '../db/schema/index';
import type { DeliveryStatus } from '../modules/webhooks/webhooks.machine';
import { decrypt, encrypt } from '../shared/crypto';
import { newId } from '../shared/ids';

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
  /** When the lease runs out (ms since the epoch, this process's clock). */
  leasedUntil: number;
  /** When it fell due (ms): the order in which a dispatcher launches what it holds. */
  dueAt: number;
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
  next_attempt_at: string | Date;
  secret_enc: string | null;
}

const tsParam = (d: Date | null) => (d ? sql`${d.toISOString()}::timestamptz` : sql`null::timestamptz`);

/**
 * `whsec_` + standard base64 of 32 random bytes: the form the Standard Webhooks libraries decode
 * into their HMAC key (see signingKeys in envelope.ts).
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * Claims up to `limit` due deliveries, oldest due first, in one statement: rows other workers hold
 * are skipped (FOR UPDATE SKIP LOCKED), URLs and clients this process already saturates are
 * excluded, and of the rest at most `urlRoom(url)` rows per URL and `clientRoom(client)` per client
 * are taken (the other candidates, counted in `passedOver`, are only locked for the statement,
 * never leased). The lease
 * (locked_until + lease_token) makes a crashed worker's claims claimable again once it runs out.
 * The signing secret comes back with each row.
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
    /** Rows this claim may take per URL / client: defaults, and the smaller figures of those already held. */
    urlRoom: { default: number; held: Record<string, number> };
    clientRoom: { default: number; held: Record<string, number> };
  },
): Promise<{ claimed: ClaimedDelivery[]; passedOver: number }> {
  if (opts.limit <= 0) return { claimed: [], passedOver: 0 };
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
    with cand as (
      select id, url, client_id, next_attempt_at from webhook_deliveries
       where status in ('pending', 'retrying') and ${due}
         and (locked_until is null or locked_until <= ${now}) ${notSaturated} ${notSaturatedClient}
       order by next_attempt_at, id
       limit ${opts.limit}
       for update skip locked),
    ranked as (
      select id, url, client_id,
             row_number() over (partition by url order by next_attempt_at, id) as url_rank,
             row_number() over (partition by client_id order by next_attempt_at, id) as client_rank
        from cand),
    claimed as (
      update webhook_deliveries d
         set locked_until = ${tsParam(new Date(opts.now.getTime() + opts.leaseMs))}, lease_token = ${token}::uuid
        from ranked c
       where d.id = c.id
         and c.url_rank <= coalesce((${JSON.stringify(opts.urlRoom.held)}::jsonb ->> c.url)::int, ${opts.urlRoom.default}::int)
         and c.client_rank <= coalesce((${JSON.stringify(opts.clientRoom.held)}::jsonb ->> c.client_id::text)::int, ${opts.clientRoom.default}::int)
      returning d.id, d.event_id, d.client_id, d.destination_id, d.event_type, d.url, d.body, d.status,
                d.attempts, d.cycle_attempts, d.lease_token, d.next_attempt_at,
                case when d.destination_id is null
                     then (select webhook_secret_enc from clients where id = d.client_id)
                     else (select secret_enc from webhook_destinations where id = d.destination_id and deleted_at is null)
                end as secret_enc)
    select claimed.*, n.candidates from (select count(*)::int as candidates from cand) n left join claimed on true`);
  const leasedUntil = opts.now.getTime() + opts.leaseMs;
  const rows = rowsOf<ClaimRow & { candidates: number }>(res);
  const claimed = rows
    .filter((r) => r.id !== null)
    .map((r) => ({
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
      leasedUntil,
      secretEnc: r.secret_enc,
      dueAt: new Date(r.next_attempt_at).getTime(),
    }))
    .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1));
  // Due rows passed over for a URL's or client's room: claiming again without them may find more.
  return { claimed, passedOver: Number(rows[0]?.candidates ?? 0) - claimed.length };
}

/** Gives claimed deliveries back (compare-and-set on the lease) so any worker can claim them at once. */
export async function releaseDeliveries(db: Db, ds: ClaimedDelivery[]): Promise<void> {
  for (const token of new Set(ds.map((d) => d.leaseToken)))
    await db
      .update(webhookDeliveries)
      .set({ lockedUntil: null, leaseToken: null })
      .where(
        and(
          inArray(
            webhookDeliveries.id,
            ds.filter((d) => d.leaseToken === token).map((d) => d.id),
          ),
          eq(webhookDeliveries.leaseToken, token),
        ),
      );
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
 * Writes the attempts and moves their deliveries in one statement, compare-and-set on each lease;
 * returns the ids whose lease was lost (another worker took the delivery over): such an attempt is
 * kept in the history as `superseded` and the delivery is left to its current holder.
 */
export async function recordAttempts(db: DbOrTx, records: AttemptRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  // PostgreSQL text holds no NUL; a receiver's body may.
  const text = (t: string | null) => t?.replaceAll('\u0000', '') ?? null;
  const input = records.map((r) => ({
    id: r.delivery.id,
    attempt_id: newId(),
    lease_token: r.delivery.leaseToken,
    client_id: r.delivery.clientId,
    url: r.delivery.url,
    fallback_attempt: r.delivery.attempts + 1,
    status: r.status,
    next_attempt_at: iso(r.nextAttemptAt),
    started_at: iso(r.startedAt),
    duration_ms: r.durationMs,
    response_status: r.responseStatus,
    response_body: text(r.responseBody),
    error: text(r.error),
    succeeded_at: r.status === 'succeeded' ? iso(r.now) : null,
    now: iso(r.now),
  }));
  const res = await db.execute(sql`
    with r as (
      select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as r(
        id uuid, attempt_id uuid, lease_token uuid, client_id uuid, url text, fallback_attempt int,
        status text, next_attempt_at timestamptz, started_at timestamptz, duration_ms int,
        response_status int, response_body text, error text, succeeded_at timestamptz, now timestamptz)),
    moved as (
      update webhook_deliveries d
         set status = r.status, attempts = d.attempts + 1, cycle_attempts = d.cycle_attempts + 1,
             next_attempt_at = r.next_attempt_at, locked_until = null, lease_token = null,
             last_attempt_at = r.started_at, last_response_status = r.response_status,
             last_error = r.error, succeeded_at = r.succeeded_at, updated_at = r.now
        from r
       where d.id = r.id and d.lease_token = r.lease_token and d.status in ('pending', 'retrying')
         and d.id = any(${`{${records.map((x) => x.delivery.id).join(',')}}`}::uuid[])
      returning d.id, d.attempts)
    insert into webhook_delivery_attempts
      (id, delivery_id, client_id, attempt, url, started_at, duration_ms, response_status, response_body, error,
       outcome, next_attempt_at)
    select r.attempt_id, r.id, r.client_id, coalesce(m.attempts, r.fallback_attempt), r.url, r.started_at,
           r.duration_ms, r.response_status, r.response_body, r.error,
           case when m.id is not null then r.status else 'superseded' end,
           case when m.id is not null then r.next_attempt_at end
      from r left join moved m on m.id = r.id
    returning delivery_id, outcome`);
  return new Set(
    rowsOf<{ delivery_id: string; outcome: string }>(res)
      .filter((r) => r.outcome === 'superseded')
      .map((r) => r.delivery_id),
  );
}

/** One attempt (see recordAttempts); false when the lease was lost. */
export async function recordAttempt(db: DbOrTx, r: AttemptRecord): Promise<boolean> {
  return (await recordAttempts(db, [r])).size === 0;
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
