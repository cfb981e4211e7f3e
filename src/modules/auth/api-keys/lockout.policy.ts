/**
 * The API-key lockout rule, as pure functions over the stored counter: 5 failed exchanges lock the
 * key for 5 minutes; the count restarts after 5 minutes without a failure, after a lock, and on
 * success (the caller deletes the row).
 */
import { addSeconds, secondsUntil } from '../../../shared/clock';
import type { ApiKeyLockoutRow } from './credentials.repo';

export const API_KEY_MAX_FAILURES = 5;
export const API_KEY_LOCKOUT_SECONDS = 5 * 60;
/** Failures further apart than this do not add up. */
export const API_KEY_FAILURE_WINDOW_SECONDS = 5 * 60;

/** Seconds the key stays locked, or 0 when it is not locked. */
export function lockedForSeconds(row: ApiKeyLockoutRow | undefined, now: Date): number {
  if (!row?.lockedUntil || row.lockedUntil <= now) return 0;
  return secondsUntil(now, row.lockedUntil);
}

/** The counter after one more failure at `now` (locks the key when the limit is reached). */
export function afterFailure(
  keyHash: string,
  row: ApiKeyLockoutRow | undefined,
  now: Date,
): ApiKeyLockoutRow {
  const fresh =
    !row ||
    (row.lockedUntil !== null && row.lockedUntil <= now) ||
    addSeconds(row.lastFailureAt, API_KEY_FAILURE_WINDOW_SECONDS) <= now;
  const failures = (fresh ? 0 : row.failures) + 1;
  if (failures >= API_KEY_MAX_FAILURES) {
    return {
      keyHash,
      failures: 0,
      lastFailureAt: now,
      lockedUntil: addSeconds(now, API_KEY_LOCKOUT_SECONDS),
    };
  }
  return { keyHash, failures, lastFailureAt: now, lockedUntil: null };
}
