/**
 * Login attempts in flight in this process, per throttle key (email and client IP). The database
 * lockout only counts failures once they are recorded, so a concurrent burst would pass the lock
 * check together and run one argon2 verification each. A slot is taken before the throttle rows are
 * read, and an attempt runs argon2 only while its key's recorded failures plus the attempts in flight
 * when it took its slot (itself included) stay within the rule's limit: every earlier attempt is then
 * either counted in flight or has recorded its failure (failures are recorded before the slot is
 * freed), so a spraying burst costs at most `limit` hashes per key and node before the recorded
 * failures lock the key for every node.
 */
const inFlight = new Map<string, number>();

/**
 * Takes a slot for every key and returns, per key, the attempts in flight counting this one; or,
 * taking none, the key whose in-flight attempts already reach its limit.
 */
export function acquireLoginSlots(
  keys: { key: string; limit: number }[],
): { full: string } | { inFlight: number[] } {
  const full = keys.find((k) => (inFlight.get(k.key) ?? 0) >= k.limit);
  if (full) return { full: full.key };
  return {
    inFlight: keys.map((k) => {
      const n = (inFlight.get(k.key) ?? 0) + 1;
      inFlight.set(k.key, n);
      return n;
    }),
  };
}

export function releaseLoginSlots(keys: { key: string }[]): void {
  for (const k of keys) {
    const n = (inFlight.get(k.key) ?? 1) - 1;
    if (n <= 0) inFlight.delete(k.key);
    else inFlight.set(k.key, n);
  }
}
