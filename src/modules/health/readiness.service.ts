/**
 * /readyz's database check, answered from the last check while it is recent. A load balancer asks
 * every node several times a second (the scaling guide's HAProxy: every 250 ms, out after two
 * answers slower than 1 s). Run per request, the check needed a pooled connection (often held by
 * the requests' transactions) and a database round trip, each waiting its turn on a busy event
 * loop: in a single-node soak on a loaded 2-core machine /readyz answered in 0.39 s at the median
 * against 0.13 s for /healthz, and 12 of 106 answers took over 1 s against none, so the balancer
 * took the only node out 19 times while it was serving (HAProxy's 503 "No server is available";
 * docs/performance.md, "Soak").
 *
 * A successful check counts for READINESS_FRESH_MS; after that the next request starts one check in
 * the background and is answered from the last result, which stands until READINESS_STALE_MS after
 * it completed. Once no check has succeeded for READINESS_STALE_MS, or the last one failed (starting
 * up, migrations pending, database unreachable), requests wait for a check of their own: a database
 * that stops answering takes a node out at most READINESS_STALE_MS later than a check per request
 * did. Concurrent requests share one check.
 */

export interface ReadinessResult {
  ok: boolean;
  reason?: string;
}

/** A successful check is answered as is for this long, without starting another. */
export const READINESS_FRESH_MS = 1_000;
/** After that, it is still answered (while a new check runs) until this long after it completed. */
export const READINESS_STALE_MS = 5_000;

export interface Readiness {
  check(): Promise<ReadinessResult>;
}

export function createReadiness(
  run: () => Promise<ReadinessResult>,
  now: () => number = () => performance.now(),
): Readiness {
  let last: (ReadinessResult & { at: number }) | null = null;
  let running: Promise<ReadinessResult> | null = null;

  const refresh = (): Promise<ReadinessResult> => {
    running ??= run()
      .catch((): ReadinessResult => ({ ok: false, reason: 'database check failed' }))
      .then((r) => {
        last = { ...r, at: now() };
        running = null;
        return r;
      });
    return running;
  };

  return {
    async check() {
      const age = last ? now() - last.at : Number.POSITIVE_INFINITY;
      if (!last?.ok || age >= READINESS_STALE_MS) return refresh();
      if (age >= READINESS_FRESH_MS) void refresh();
      return { ok: true };
    },
  };
}
