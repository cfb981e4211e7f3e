/**
 * `X-Idempotency-Key` for the named areas' "(idem)" endpoints, with the paylink rules
 * (docs/guides/idempotency.md): the same key and payload replay the original body with 200; another
 * payload is 409; a duplicate still in flight is 409; an empty key (or a missing one where required)
 * is 400. The claim is completed inside the caller's transaction, so the resource and the stored
 * response commit together: a crash can never leave a resource without its key, or the reverse.
 */
import { and, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { idempotencyRecords } from '../db/schema/index';
import type { Deps } from '../deps';
import { addSeconds } from './clock';
import { badRequest, conflict } from './errors';
import { canonicalJson, requestFingerprint } from './fingerprint';
import { M } from './messages';

export { canonicalJson };

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

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

type D = Pick<Deps, 'db' | 'clock' | 'config'>;

/** The key of the header: undefined when absent; 400 when empty (or absent and required). */
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

/**
 * Runs `exec` at most once per (client, scope, key). `exec` must call `commit(tx, body)` inside the
 * transaction that makes the change; its return value is the answer of this call.
 */
export async function runIdempotent<T>(
  deps: D,
  req: IdempotentRequest,
  exec: (commit: CommitIdempotent) => Promise<{ body: T; status: number }>,
): Promise<IdempotentResult<T>> {
  const key = idempotencyKeyOf(req.header, req.required);
  if (key === undefined) {
    const res = await exec(async () => {});
    return { ...res, replayed: false };
  }
  const claim = await claimKey(deps, req.clientId, req.scope, key, requestFingerprint(req.payload));
  if (claim.kind === 'replay') return { body: claim.body as T, status: 200, replayed: true };
  let committed = false;
  const commit: CommitIdempotent = async (tx, body, status = 201) => {
    const done = await tx
      .update(idempotencyRecords)
      .set({ state: 'completed', responseBody: body, responseStatus: status, completedAt: deps.clock.now() })
      .where(and(eq(idempotencyRecords.id, claim.id), eq(idempotencyRecords.state, 'processing')))
      .returning({ id: idempotencyRecords.id });
    // Our claim was taken over as stale meanwhile: roll the caller's transaction back.
    if (done.length === 0) throw conflict(M.idempotencyInProgress);
    committed = true;
  };
  try {
    const res = await exec(commit);
    if (!committed) await commit(deps.db, res.body, res.status);
    return { ...res, replayed: false };
  } catch (err) {
    if (!committed) {
      // A failed request leaves no claim behind, so the client can retry with the same key.
      await deps.db
        .delete(idempotencyRecords)
        .where(and(eq(idempotencyRecords.id, claim.id), eq(idempotencyRecords.state, 'processing')))
        .catch(() => {});
    }
    throw err;
  }
}

type Claim = { kind: 'claimed'; id: string } | { kind: 'replay'; body: unknown };

async function claimKey(
  deps: D,
  clientId: string,
  scope: string,
  key: string,
  fingerprint: string,
): Promise<Claim> {
  const now = deps.clock.now();
  for (let attempt = 0; attempt < 3; attempt++) {
    const [inserted] = await deps.db
      .insert(idempotencyRecords)
      .values({ clientId, scope, idempotencyKey: key, fingerprint, state: 'processing', createdAt: now })
      .onConflictDoNothing()
      .returning({ id: idempotencyRecords.id });
    if (inserted) return { kind: 'claimed', id: inserted.id };
    const [existing] = await deps.db
      .select()
      .from(idempotencyRecords)
      .where(
        and(
          eq(idempotencyRecords.clientId, clientId),
          eq(idempotencyRecords.scope, scope),
          eq(idempotencyRecords.idempotencyKey, key),
        ),
      );
    if (!existing) continue; // released meanwhile: claim again
    if (existing.fingerprint !== fingerprint) throw conflict(M.idempotencyPayloadMismatch);
    if (existing.state === 'completed') return { kind: 'replay', body: existing.responseBody };
    // A claim left by a crashed request is taken over after the stale period.
    const released = await deps.db
      .delete(idempotencyRecords)
      .where(
        and(
          eq(idempotencyRecords.id, existing.id),
          eq(idempotencyRecords.state, 'processing'),
          lt(idempotencyRecords.createdAt, addSeconds(now, -deps.config.idempotencyStaleSeconds)),
        ),
      )
      .returning({ id: idempotencyRecords.id });
    if (released.length === 0) throw conflict(M.idempotencyInProgress);
  }
  throw conflict(M.idempotencyInProgress);
}
