/**
 * Writing timers (see timers.ts): the job rows only, with no handler and nothing that needs the
 * service's deps, so that code below the features (the sandbox simulators in src/providers) can set
 * and remove timers without an import cycle.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { Clock } from '../../shared/clock';
import { newId } from '../../shared/ids';

/** A job's attempts unless its definition says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 10;

/**
 * What setting a timer needs (its kind and key), apart from its handler: a feature sets timers where
 * it moves its rows and handles them where its workers live, without an import cycle.
 */
export interface TimerRef<P extends Record<string, unknown>> {
  kind: string;
  /** The dedupe key of the timer of `payload` (the row it is about). */
  keyOf(payload: P): string;
  maxAttempts?: number;
}

/** Names a timer kind (see `TimerRef`); `defineTimer({...ref, label, fire})` adds its handler. */
export function timerRef<P extends Record<string, unknown>>(ref: TimerRef<P>): TimerRef<P> {
  return ref;
}

/**
 * Sets the timer of `payload`'s row to `runAt`, in the caller's transaction: a new job, or the
 * existing one of that kind and key moved to the new time (pending again).
 */
export async function setTimer<P extends Record<string, unknown>>(
  tx: DbOrTx,
  clock: Clock,
  def: TimerRef<P>,
  timer: { payload: P; runAt: Date; clientId?: string | null },
): Promise<void> {
  const now = clock.now();
  const max = def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  await tx.execute(sql`
    insert into jobs (id, kind, payload, client_id, dedupe_key, status, attempts, max_attempts, run_at, created_at, updated_at)
    values (${newId()}, ${def.kind}, ${JSON.stringify(timer.payload)}::jsonb, ${timer.clientId ?? null},
            ${def.keyOf(timer.payload)}, 'pending', 0, ${max}, ${timer.runAt}, ${now}, ${now})
    on conflict (kind, dedupe_key) where dedupe_key is not null do update
       set run_at = excluded.run_at, payload = excluded.payload, status = 'pending',
           max_attempts = jobs.attempts + ${max}, last_error = null, finished_at = null,
           updated_at = excluded.updated_at`);
}

/** Sets several timers of one kind in one statement (a batch of rows given due times at once). */
export async function setTimers<P extends Record<string, unknown>>(
  tx: DbOrTx,
  clock: Clock,
  def: TimerRef<P>,
  timers: readonly { payload: P; runAt: Date; clientId?: string | null }[],
): Promise<void> {
  if (timers.length === 0) return;
  const now = clock.now();
  const max = def.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const rows = timers.map(
    (t) => sql`(${newId()}, ${def.kind}, ${JSON.stringify(t.payload)}::jsonb, ${t.clientId ?? null}::uuid,
      ${def.keyOf(t.payload)}, 'pending', 0, ${max}, ${t.runAt}::timestamptz, ${now}::timestamptz, ${now}::timestamptz)`,
  );
  await tx.execute(sql`
    insert into jobs (id, kind, payload, client_id, dedupe_key, status, attempts, max_attempts, run_at, created_at, updated_at)
    values ${sql.join(rows, sql`, `)}
    on conflict (kind, dedupe_key) where dedupe_key is not null do update
       set run_at = excluded.run_at, payload = excluded.payload, status = 'pending',
           max_attempts = jobs.attempts + ${max}, last_error = null, finished_at = null,
           updated_at = excluded.updated_at`);
}

/**
 * Removes the pending timer of `payload`'s row (its row reached a final state first). A timer
 * already running is left to finish: its handler finds the row final and does nothing.
 */
export async function cancelTimer<P extends Record<string, unknown>>(
  tx: DbOrTx,
  def: TimerRef<P>,
  payload: P,
): Promise<void> {
  await tx.execute(sql`
    delete from jobs where kind = ${def.kind} and dedupe_key = ${def.keyOf(payload)} and status = 'pending'`);
}

/** Removes the pending timers of several rows of one kind in one statement (see `cancelTimer`). */
export async function cancelTimers<P extends Record<string, unknown>>(
  tx: DbOrTx,
  def: TimerRef<P>,
  payloads: readonly P[],
): Promise<void> {
  if (payloads.length === 0) return;
  const keys = payloads.map((p) => sql`${def.keyOf(p)}`);
  await tx.execute(sql`
    delete from jobs where kind = ${def.kind} and dedupe_key in (${sql.join(keys, sql`, `)}) and status = 'pending'`);
}
