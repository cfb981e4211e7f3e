/**
 * Login attempts in flight in this process, per throttle key (email and client IP). The database
 * lockout only counts failures once they are recorded, so a concurrent burst would pass the lock
 * check together and run one argon2 verification each. Here, more attempts in flight for one key
 * than its rule's failure limit are refused with 429 before argon2 runs: a spraying burst costs at
 * most `limit` hashes per key and node until the recorded failures lock the key for every node.
 */
const inFlight = new Map<string, number>();

/** Takes a slot for every key, or none (returns the key that is full). */
export function acquireLoginSlots(keys: { key: string; limit: number }[]): string | null {
  const full = keys.find((k) => (inFlight.get(k.key) ?? 0) >= k.limit);
  if (full) return full.key;
  for (const k of keys) inFlight.set(k.key, (inFlight.get(k.key) ?? 0) + 1);
  return null;
}

export function releaseLoginSlots(keys: { key: string }[]): void {
  for (const k of keys) {
    const n = (inFlight.get(k.key) ?? 1) - 1;
    if (n <= 0) inFlight.delete(k.key);
    else inFlight.set(k.key, n);
  }
}
