/**
 * Failure counters, lockouts and cooldowns in the database (table auth_throttles), so every API
 * node enforces the same limits. Time comes from the injected clock.
 *
 * Login rules (docs/guides/authentication.md: two lockouts, both apply):
 *   - per email: 5 failures within 15 minutes lock that email for 5 minutes;
 *   - per client IP: 10 failures within 60 seconds lock that IP for 60 seconds.
 * A successful login clears the email counter (not the IP counter).
 */
import { eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { authThrottles } from '../../../db/schema/index';
import { addSeconds, secondsUntil } from '../../../shared/clock';
import { type AppError, tooManyRequests } from '../../../shared/errors';

export interface ThrottleRule {
  /** Failures that trigger the lock. */
  limit: number;
  /** Failures older than this no longer count. */
  windowSeconds: number;
  lockSeconds: number;
}

export const LOGIN_EMAIL_RULE: ThrottleRule = { limit: 5, windowSeconds: 15 * 60, lockSeconds: 5 * 60 };
export const LOGIN_IP_RULE: ThrottleRule = { limit: 10, windowSeconds: 60, lockSeconds: 60 };

/** Guessing registration codes: 10 wrong codes for one email in an hour lock verification for an hour. */
export const VERIFY_EMAIL_RULE: ThrottleRule = { limit: 10, windowSeconds: 3600, lockSeconds: 3600 };

export const loginEmailKey = (email: string) => `login-email:${email.trim().toLowerCase()}`;
export const loginIpKey = (ip: string) => `login-ip:${ip}`;

export interface ActiveLock {
  key: string;
  lockedUntil: Date;
}

/** The throttle rows of `keys` (keys without failures, locks or cooldowns have none). */
export function findThrottles(
  db: DbOrTx,
  keys: string[],
): Promise<{ key: string; lockedUntil: Date | null }[]> {
  return db
    .select({ key: authThrottles.key, lockedUntil: authThrottles.lockedUntil })
    .from(authThrottles)
    .where(inArray(authThrottles.key, keys));
}

/** The lock among `keys` that ends last, if any is active at `now`. */
export async function findActiveLock(db: DbOrTx, keys: string[], now: Date): Promise<ActiveLock | null> {
  return activeLockOf(await findThrottles(db, keys), now);
}

/** The lock among throttle rows that ends last, if any is active at `now`. */
export function activeLockOf(
  rows: { key: string; lockedUntil: Date | null }[],
  now: Date,
): ActiveLock | null {
  let found: ActiveLock | null = null;
  for (const r of rows) {
    if (r.lockedUntil && r.lockedUntil > now && (!found || r.lockedUntil > found.lockedUntil)) {
      found = { key: r.key, lockedUntil: r.lockedUntil };
    }
  }
  return found;
}

/** The failures of a throttle row that still count at `now` (the same window rule as recordFailure). */
export function failuresInWindow(
  row: { failures: number; windowStartedAt: Date; lockedUntil: Date | null },
  rule: ThrottleRule,
  now: Date,
): number {
  const stale =
    row.windowStartedAt <= addSeconds(now, -rule.windowSeconds) ||
    (row.lockedUntil !== null && row.lockedUntil <= now);
  return stale ? 0 : row.failures;
}

/**
 * Counts one failure for `key` in a single atomic statement: a failure outside the window (or
 * after an expired lock) starts a new window; reaching the limit sets the lock and resets the count.
 */
export async function recordFailure(db: DbOrTx, key: string, rule: ThrottleRule, now: Date): Promise<void> {
  const windowStart = addSeconds(now, -rule.windowSeconds);
  const lockUntil = addSeconds(now, rule.lockSeconds);
  const t = authThrottles;
  const fresh = sql`(${t.windowStartedAt} <= ${windowStart} or (${t.lockedUntil} is not null and ${t.lockedUntil} <= ${now}))`;
  const next = sql`(case when ${fresh} then 1 else ${t.failures} + 1 end)`;
  await db
    .insert(t)
    .values({
      key,
      failures: rule.limit <= 1 ? 0 : 1,
      windowStartedAt: now,
      lockedUntil: rule.limit <= 1 ? lockUntil : null,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: t.key,
      set: {
        failures: sql`(case when ${next} >= ${rule.limit} then 0 else ${next} end)`,
        windowStartedAt: sql`(case when ${fresh} then ${now}::timestamptz else ${t.windowStartedAt} end)`,
        lockedUntil: sql`(case when ${next} >= ${rule.limit} then ${lockUntil}::timestamptz when ${fresh} then null else ${t.lockedUntil} end)`,
        updatedAt: now,
      },
    });
}

export async function clearThrottle(db: DbOrTx, key: string): Promise<void> {
  await db.delete(authThrottles).where(eq(authThrottles.key, key));
}

/**
 * A cooldown (e.g. code resend): returns the active lock if one is running, otherwise starts a
 * new one of `seconds` atomically (only one of two concurrent callers wins).
 */
export async function startCooldown(
  db: DbOrTx,
  key: string,
  seconds: number,
  now: Date,
): Promise<ActiveLock | null> {
  const until = addSeconds(now, seconds);
  const t = authThrottles;
  const won = await db
    .insert(t)
    .values({ key, failures: 0, windowStartedAt: now, lockedUntil: until, updatedAt: now })
    .onConflictDoUpdate({
      target: t.key,
      set: { lockedUntil: until, windowStartedAt: now, updatedAt: now },
      setWhere: sql`${t.lockedUntil} is null or ${t.lockedUntil} <= ${now}`,
    })
    .returning({ key: t.key });
  if (won.length === 1) return null;
  return findActiveLock(db, [key], now);
}

/** 429 with Retry-After and X-RateLimit-* for an active lock. */
export function lockedError(
  lock: ActiveLock,
  now: Date,
  limit: number,
  message: (seconds: number) => string,
): AppError {
  const seconds = Math.max(1, secondsUntil(now, lock.lockedUntil));
  return tooManyRequests(message(seconds), seconds, limit, lock.lockedUntil);
}
