/**
 * Idempotency keys, one protocol for every endpoint that takes `X-Idempotency-Key`
 * (docs/platform.md, "Idempotency"): the same key and payload replay the original answer; another
 * payload is 409; a duplicate still in flight is 409; an empty key (or a missing one where required)
 * is 400. A key is a claim row, unique per (client, scope, key) so it holds across processes and
 * nodes: the first request inserts it `processing`, the others read it; the claim is completed in
 * the transaction that makes the change, and a failed request deletes it so the client can retry.
 * A claim left by a crashed request is taken over after `SVC_IDEMPOTENCY_STALE_SECONDS`.
 *
 * Two tables hold claims: `idempotency_records` (the stored response, replayed as it was:
 * `runIdempotent`) and `payment_idempotency_keys` (the payment a key became: payment links, whose
 * fast path claims and reads in one statement, `paylink.statements.ts`).
 */
import { and, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { idempotencyRecords, type paymentIdempotencyKeys } from '../db/schema/index';
import type { Deps } from '../deps';
import { addSeconds } from '../shared/clock';
import { badRequest, conflict } from '../shared/errors';
import { requestFingerprint } from '../shared/fingerprint';
import { M } from '../shared/messages';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** The key of the header: undefined when absent; 400 when empty (or absent and required) or too long. */
export function idempotencyKeyOf(header: string | string[] | undefined, required: true): string;
export function idempotencyKeyOf(
  header: string | string[] | undefined,
  required: boolean,
): string | undefined;
export function idempotencyKeyOf(
  header: string | string[] | undefined,
  required: boolean,
): string | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) {
    if (required) throw badRequest(M.idempotencyKeyEmpty);
    return undefined;
  }
  const key = raw.trim();
  if (key === '') throw badRequest(M.idempotencyKeyEmpty);
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH)
    throw badRequest(`X-Idempotency-Key must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
  return key;
}

// ---- claims ----

/** A table of claims: both have (client_id, scope, idempotency_key) unique, fingerprint, state. */
export type ClaimTable = typeof idempotencyRecords | typeof paymentIdempotencyKeys;
type RowOf<T extends ClaimTable> = T['$inferSelect'];

export type Claim<R> = { kind: 'claimed'; id: string } | { kind: 'replay'; record: R };

export interface ClaimRequest {
  clientId: string;
  /** Keys are scoped: an endpoint (`contracts.send`), or `api`/`platform` for payment links. */
  scope: string;
  key: string;
  /** What identifies "the same request" (`requestFingerprint` of the payload). */
  fingerprint: string;
  now: Date;
  /** A `processing` claim older than this is a crashed request's and is taken over. */
  staleSeconds: number;
}

/**
 * Claims the key, or returns the completed claim of the earlier request with it (to replay).
 * Throws 409 for a different payload or a duplicate still in flight.
 */
export async function claimIdempotencyKey<T extends ClaimTable>(
  db: DbOrTx,
  table: T,
  c: ClaimRequest,
): Promise<Claim<RowOf<T>>> {
  // The two tables share these columns; drizzle cannot type a statement over a union of tables.
  const t = table as typeof idempotencyRecords;
  for (let attempt = 0; attempt < 3; attempt++) {
    const [inserted] = await db
      .insert(t)
      .values({
        clientId: c.clientId,
        scope: c.scope,
        idempotencyKey: c.key,
        fingerprint: c.fingerprint,
        state: 'processing',
        createdAt: c.now,
      })
      .onConflictDoNothing()
      .returning({ id: t.id });
    if (inserted) return { kind: 'claimed', id: inserted.id };
    const [existing] = await db
      .select()
      .from(t)
      .where(and(eq(t.clientId, c.clientId), eq(t.scope, c.scope), eq(t.idempotencyKey, c.key)));
    if (!existing) continue; // the earlier request failed and released the key: claim again
    if (existing.fingerprint !== c.fingerprint) throw conflict(M.idempotencyPayloadMismatch);
    if (existing.state === 'completed') return { kind: 'replay', record: existing as RowOf<T> };
    const released = await db
      .delete(t)
      .where(
        and(
          eq(t.id, existing.id),
          eq(t.state, 'processing'),
          lt(t.createdAt, addSeconds(c.now, -c.staleSeconds)),
        ),
      )
      .returning({ id: t.id });
    if (released.length === 0) throw conflict(M.idempotencyInProgress);
  }
  throw conflict(M.idempotencyInProgress);
}

/**
 * Completes our claim with what the request became (`set`), in the transaction that made it. False
 * when the claim is gone (taken over as stale): the caller must roll back, so one key never makes
 * two changes.
 */
export async function completeIdempotencyClaim<T extends ClaimTable>(
  db: DbOrTx,
  table: T,
  id: string,
  set: Partial<RowOf<T>> & { completedAt: Date },
): Promise<boolean> {
  const t = table as typeof idempotencyRecords;
  const done = await db
    .update(t)
    .set({ ...(set as Partial<RowOf<typeof idempotencyRecords>>), state: 'completed' })
    .where(and(eq(t.id, id), eq(t.state, 'processing')))
    .returning({ id: t.id });
  return done.length === 1;
}

/** Deletes our claim after a failure, so the client can retry with the same key. */
export async function releaseIdempotencyClaim(db: DbOrTx, table: ClaimTable, id: string): Promise<void> {
  const t = table as typeof idempotencyRecords;
  await db.delete(t).where(and(eq(t.id, id), eq(t.state, 'processing')));
}

// ---- stored responses ----

export interface IdempotentRequest {
  clientId: string;
  /** The endpoint, e.g. `contracts.send`: keys are scoped to the client and the endpoint. */
  scope: string;
  /** The raw X-Idempotency-Key header. */
  header: string | string[] | undefined;
  /** "(idem, required)": a missing header is 400 too. */
  required: boolean;
  /** What identifies "the same request" (usually the body). */
  payload: unknown;
}

/** Call inside the transaction that creates the resource, with the response body to replay later. */
export type CommitIdempotent = (tx: DbOrTx, body: unknown, status?: number) => Promise<void>;

export interface IdempotentResult<T> {
  body: T;
  /** True when this is the stored answer of an earlier request (answer 200). */
  replayed: boolean;
  status: number;
}

/**
 * Runs `exec` at most once per (client, scope, key), replaying its stored response afterwards.
 * `exec` must call `commit(tx, body)` inside the transaction that makes the change, so the change
 * and the stored response commit together; its return value is the answer of this call.
 */
export async function runIdempotent<T>(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  req: IdempotentRequest,
  exec: (commit: CommitIdempotent) => Promise<{ body: T; status: number }>,
): Promise<IdempotentResult<T>> {
  const key = idempotencyKeyOf(req.header, req.required);
  if (key === undefined) {
    const res = await exec(async () => {});
    return { ...res, replayed: false };
  }
  const claim = await claimIdempotencyKey(deps.db, idempotencyRecords, {
    clientId: req.clientId,
    scope: req.scope,
    key,
    fingerprint: requestFingerprint(req.payload),
    now: deps.clock.now(),
    staleSeconds: deps.config.idempotencyStaleSeconds,
  });
  if (claim.kind === 'replay') return { body: claim.record.responseBody as T, status: 200, replayed: true };
  let committed = false;
  const commit: CommitIdempotent = async (tx, body, status = 201) => {
    const done = await completeIdempotencyClaim(tx, idempotencyRecords, claim.id, {
      responseBody: body,
      responseStatus: status,
      completedAt: deps.clock.now(),
    });
    // Our claim was taken over as stale meanwhile: roll the caller's transaction back.
    if (!done) throw conflict(M.idempotencyInProgress);
    committed = true;
  };
  try {
    const res = await exec(commit);
    if (!committed) await commit(deps.db, res.body, res.status);
    return { ...res, replayed: false };
  } catch (err) {
    if (!committed) await releaseIdempotencyClaim(deps.db, idempotencyRecords, claim.id).catch(() => {});
    throw err;
  }
}
