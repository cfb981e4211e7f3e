/**
 * Delivery status machine. A delivery starts `pending`; each failed attempt moves it to
 * `retrying` until the attempt budget (the 8 configured delays) is spent, then `dead_letter`.
 * A 2xx moves it to `succeeded`. A manual retry puts a finished delivery back to `pending`
 * with a fresh budget. Nothing else decides a delivery status. The dispatcher writes a batch of
 * attempts in one statement (compare-and-set on each lease, outbox/delivery-store.ts), so moves are
 * decided here and written there, not through the platform's one-row `transition`.
 */
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../db/schema/webhook-deliveries';
import { defineMachine } from '../../platform/machine';
import { conflict } from '../../shared/errors';
import { M } from '../../shared/messages';

export { DELIVERY_STATUSES, type DeliveryStatus };

export type DeliveryTransition = 'attempt_succeeded' | 'attempt_failed' | 'budget_exhausted' | 'manual_retry';

/** The table as rows: where a trigger takes a delivery depends on where it is. */
const TRANSITIONS: readonly { trigger: DeliveryTransition; from: DeliveryStatus; to: DeliveryStatus }[] = [
  { trigger: 'attempt_succeeded', from: 'pending', to: 'succeeded' },
  { trigger: 'attempt_failed', from: 'pending', to: 'retrying' },
  { trigger: 'budget_exhausted', from: 'pending', to: 'dead_letter' },
  { trigger: 'manual_retry', from: 'pending', to: 'pending' },
  { trigger: 'attempt_succeeded', from: 'retrying', to: 'succeeded' },
  { trigger: 'attempt_failed', from: 'retrying', to: 'retrying' },
  { trigger: 'budget_exhausted', from: 'retrying', to: 'dead_letter' },
  { trigger: 'manual_retry', from: 'retrying', to: 'retrying' },
  { trigger: 'manual_retry', from: 'succeeded', to: 'pending' },
  { trigger: 'manual_retry', from: 'dead_letter', to: 'pending' },
];

/** No terminal status: a manual retry brings any delivery back. A refused move is the in-flight 409. */
export const deliveryMachine = defineMachine({
  name: 'webhook delivery',
  statuses: DELIVERY_STATUSES,
  transitions: TRANSITIONS,
  terminal: [],
  refused: () => conflict(M.webhookDeliveryInFlight),
});

export const nextDeliveryStatus = (from: DeliveryStatus, t: DeliveryTransition): DeliveryStatus | null =>
  deliveryMachine.next(t, from);

/** Statuses the worker still attempts. */
export const ACTIVE_DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'retrying'];

export const isTerminalDelivery = (s: DeliveryStatus): boolean => s === 'succeeded' || s === 'dead_letter';

/** Success is any 2xx (within the timeout, enforced by the sender). */
export const isSuccessStatus = (code: number | null): boolean => code !== null && code >= 200 && code < 300;

/**
 * What happens after attempt number `cycleAttempt` (1-based, within the current cycle) failed:
 * the delay before the next attempt, or null when the budget is spent (dead_letter).
 * `backoff[i]` is the delay before attempt i+1; a Retry-After on 429/503 replaces it.
 */
export function retryDelaySeconds(
  backoff: readonly number[],
  cycleAttempt: number,
  retryAfterSeconds: number | null,
): number | null {
  if (cycleAttempt >= backoff.length) return null;
  if (retryAfterSeconds !== null) return retryAfterSeconds;
  return backoff[cycleAttempt]!;
}

/** Longest Retry-After we honour; a larger value is clamped so one answer cannot park a delivery for days. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/** Parses Retry-After (delta seconds or an HTTP date) into seconds from `now`; null when absent or invalid. */
export function parseRetryAfter(value: string | undefined | null, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  let seconds: number;
  if (/^\d+$/.test(v)) seconds = Number(v);
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return null;
    seconds = Math.max(0, (at - now.getTime()) / 1000);
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}
