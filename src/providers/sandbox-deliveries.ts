/**
 * Delayed notifications of the sandbox simulators (screening's `5555` result, a sandbox VASP's
 * answer, the e-signing simulator's `+autosign` / `+autodecline` actions): each is a timer job (docs/platform.md "Timers") of its simulator's kind, written when the
 * simulator schedules it and due after the simulated delay; its handler
 * (sandbox-delivery.timers.ts) posts the body through the service's signed inbound route, as the
 * simulator's other notifications are. Staff see them in the jobs table with everything else due.
 *
 * They were rows of `sandbox_screening_jobs` / `sandbox_travel_rule_jobs` (`due_at`, `delivered_at`)
 * two releases ago; the previous release's timers' backfill gave the rows still due then a job
 * (`legacy`), and nothing reads those rows any more (docs/guides/operations.md, "Schema changes
 * across a rolling deploy"). The e-signing actions were rows of `sandbox_esign_actions` (`due_at`,
 * `done_at`) until this release: the timers' backfill gives each one the previous release left
 * undone a timer (`legacy`), whose handler claims the row first, as that release's sweep did.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { setTimer, type TimerRef, timerRef } from '../platform/jobs/timer-rows';
import type { Clock } from '../shared/clock';
import { newId } from '../shared/ids';

export interface SandboxDelivery extends Record<string, unknown> {
  /** The delivery's id (its timer's key); an old queue row's id when `legacy`. */
  id: string;
  /** What the notification is about (the screening, the transfer): a cancel removes its deliveries. */
  subject: string;
  /** The notification body, without `event_id` and `occurred_at` (added when sent). */
  body: Record<string, unknown>;
  /** Written by the previous release's backfill of its old queue rows; sent as any other. */
  legacy?: true;
}

export const SANDBOX_SCREENING_DELIVERY = timerRef<SandboxDelivery>({
  kind: 'sandbox.screening_delivery',
  keyOf: (p) => `sandbox-delivery:${p.id}`,
});
export const SANDBOX_TRAVEL_RULE_DELIVERY = timerRef<SandboxDelivery>({
  kind: 'sandbox.travel_rule_delivery',
  keyOf: (p) => `sandbox-delivery:${p.id}`,
});
/** One per invited participant and envelope (`<envelope ref>:<participant id>`); subject: the envelope. */
export const SANDBOX_ESIGN_ACTION = timerRef<SandboxDelivery>({
  kind: 'sandbox.esign_action',
  keyOf: (p) => `sandbox-delivery:${p.id}`,
});

/**
 * Schedules `body` for `dueAt` (a job row, in `db`'s transaction when it is one). With an `id`, a
 * second schedule of the same id moves the first instead of adding one.
 */
export async function scheduleSandboxDelivery(
  db: DbOrTx,
  clock: Clock,
  ref: TimerRef<SandboxDelivery>,
  delivery: { id?: string; subject: string; body: Record<string, unknown>; dueAt: Date },
): Promise<void> {
  await setTimer(db, clock, ref, {
    payload: { id: delivery.id ?? newId(), subject: delivery.subject, body: delivery.body },
    runAt: delivery.dueAt,
  });
}

/**
 * Removes the deliveries of `subject` not yet sent (a canceled transfer's pending answer, a voided
 * envelope's actions).
 */
export async function cancelSandboxDeliveries(
  db: DbOrTx,
  ref: TimerRef<SandboxDelivery>,
  subject: string,
): Promise<void> {
  await db.execute(sql`
    delete from jobs where kind = ${ref.kind} and status = 'pending' and payload->>'subject' = ${subject}`);
}
