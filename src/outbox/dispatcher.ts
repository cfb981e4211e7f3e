/**
 * The delivery dispatcher: claims due deliveries in a short transaction, sends them outside any
 * transaction with bounded concurrency, and records each result in another short transaction.
 * Fairness: at most `perUrlLimit` requests in flight per target URL and `perClientLimit` per
 * client per process (a client with many slow destinations cannot take every slot), and a saturated
 * URL is excluded from the claim query, so one slow endpoint cannot hold back other clients'
 * deliveries. Several dispatchers (threads of work, processes, nodes) can run side by side:
 * FOR UPDATE SKIP LOCKED plus the lease keep them from claiming the same row twice.
 */
import type { DbOrTx } from '../db/client';
import type { Deps } from '../deps';
import { recordActivity } from '../modules/activity/activity.writer';
import { notify as notifyMembers, OWNER_AND_DEVELOPER } from '../modules/notifications/notify';
import {
  isSuccessStatus,
  nextDeliveryStatus,
  parseRetryAfter,
  retryDelaySeconds,
} from '../modules/webhooks/webhooks.machine';
import {
  type AttemptRecord,
  abandonDelivery,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempt,
  signingSecretOf,
} from './delivery-store';
import { deliveryHeaders } from './envelope';
import { createHttpSender, type HttpSender, type SendResult } from './http-sender';

export interface DispatcherOptions {
  concurrency?: number;
  perUrlLimit?: number;
  /** Max in flight per client per process; default half the concurrency (at least perUrlLimit). */
  perClientLimit?: number;
  /** Custom sender (tests); default undici with the configured timeout and SSRF guard. */
  sender?: HttpSender;
}

export interface DeliveryDispatcher {
  /** Claims what fits in the free slots and starts sending; waits briefly for a completion when full. */
  tick(): Promise<number>;
  /** Sends everything due now and waits for the results (tests, CLI). Returns the attempts made. */
  drain(): Promise<number>;
  /** Waits for every send in flight. */
  idle(): Promise<void>;
  inFlight(): number;
  close(): Promise<void>;
}

export function createDeliveryDispatcher(deps: Deps, opts: DispatcherOptions = {}): DeliveryDispatcher {
  const { config } = deps;
  const concurrency = opts.concurrency ?? config.webhookConcurrency;
  const perUrlLimit =
    opts.perUrlLimit ?? config.webhookPerUrlConcurrency ?? Math.max(1, Math.ceil(concurrency / 4));
  const sender =
    opts.sender ??
    createHttpSender({
      timeoutMs: config.webhookTimeoutMs,
      maxResponseBytes: config.webhookMaxResponseBytes,
      guardPrivateNetworks: config.environment === 'production',
      // Fairness is enforced per URL and per client above; an origin shared by many URLs (one SaaS
      // host for many merchants) must not queue every request behind a slow one.
      connectionsPerOrigin: concurrency,
    });
  // The lease outlives the longest possible attempt (headers deadline + capped body read + margin).
  const leaseMs = config.webhookTimeoutMs * 2 + 5000;
  const backoff = config.webhookBackoffSeconds;
  const running = new Set<Promise<void>>();
  const perClientLimit = opts.perClientLimit ?? Math.max(perUrlLimit, Math.ceil(concurrency / 2));
  const perUrl = new Map<string, number>();
  const perClient = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string, by: number) => {
    const n = (m.get(k) ?? 0) + by;
    if (n <= 0) m.delete(k);
    else m.set(k, n);
  };
  let waiters: (() => void)[] = [];

  const notify = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };

  async function finish(d: ClaimedDelivery, startedAt: Date, res: SendResult) {
    const now = deps.clock.now();
    const ok = isSuccessStatus(res.status);
    let status = nextDeliveryStatus(d.status, ok ? 'attempt_succeeded' : 'attempt_failed')!;
    let nextAttemptAt: Date | null = null;
    if (!ok) {
      const retryAfter =
        res.status === 429 || res.status === 503
          ? parseRetryAfter(headerValue(res.headers['retry-after']), now)
          : null;
      const delay = retryDelaySeconds(backoff, d.cycleAttempts + 1, retryAfter);
      if (delay === null) status = nextDeliveryStatus(d.status, 'budget_exhausted')!;
      else nextAttemptAt = new Date(now.getTime() + delay * 1000);
    }
    const error = ok ? null : (res.error ?? `HTTP ${res.status}`);
    const record: AttemptRecord = {
      delivery: d,
      startedAt,
      durationMs: res.durationMs,
      responseStatus: res.status,
      responseBody: res.bodySnippet,
      error,
      status,
      nextAttemptAt,
      now,
    };
    // Reaching dead_letter notifies owners and developers, in the transaction that moves the delivery.
    const kept =
      status === 'dead_letter'
        ? await deps.db.transaction(async (tx) => {
            const moved = await recordAttempt(tx, record);
            if (moved) await deadLetterNotice(tx, d, error, now);
            return moved;
          })
        : await recordAttempt(deps.db, record);
    if (!kept)
      deps.log.warn({ deliveryId: d.id }, 'webhook delivery lease lost; result kept in history only');
  }

  async function sendOne(d: ClaimedDelivery) {
    const startedAt = deps.clock.now();
    let secret: string | null;
    try {
      secret = await signingSecretOf(deps.db, deps.secrets.encryptionKey, d);
    } catch (err) {
      // Unreadable secret (e.g. a changed data key): a failed attempt, not a silent loop.
      deps.log.error({ err, deliveryId: d.id }, 'webhook signing secret unavailable');
      const res = { status: null, headers: {}, bodySnippet: null, durationMs: 0, refused: true };
      await finish(d, startedAt, { ...res, error: 'signing secret unavailable' });
      return;
    }
    if (secret === null) {
      await abandonDelivery(deps.db, d, startedAt, 'destination deleted');
      return;
    }
    // Unix seconds of the signing moment (receivers compare it with their own clock).
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = deliveryHeaders(secret, { id: d.eventId, type: d.eventType }, d.body, timestamp);
    const res = await sender.post(d.url, headers, d.body);
    await finish(d, startedAt, res);
  }

  function launch(d: ClaimedDelivery) {
    bump(perUrl, d.url, 1);
    bump(perClient, d.clientId, 1);
    const p: Promise<void> = sendOne(d)
      .catch((err) => deps.log.error({ err, deliveryId: d.id }, 'webhook delivery attempt failed to record'))
      .finally(() => {
        bump(perUrl, d.url, -1);
        bump(perClient, d.clientId, -1);
        running.delete(p);
        notify();
      });
    running.add(p);
  }

  /**
   * Claims into the free slots. When a claim hit a URL's per-URL limit (rows released), claim
   * again with that URL excluded, so other targets fill the remaining slots at once.
   */
  async function claimAndLaunch(): Promise<number> {
    let launched = 0;
    for (let round = 0; round < 4; round++) {
      const free = concurrency - running.size;
      if (free <= 0) break;
      const saturated = [...perUrl.entries()].filter(([, n]) => n >= perUrlLimit).map(([u]) => u);
      const saturatedClients = [...perClient.entries()]
        .filter(([, n]) => n >= perClientLimit)
        .map(([c]) => c);
      const { claimed, released } = await claimDueDeliveries(deps.db, {
        now: deps.clock.now(),
        limit: free,
        leaseMs,
        firstDelaySeconds: backoff[0] ?? 0,
        saturatedUrls: saturated,
        saturatedClients,
        freeSlotsForUrl: (url) => perUrlLimit - (perUrl.get(url) ?? 0),
        freeSlotsForClient: (clientId) => perClientLimit - (perClient.get(clientId) ?? 0),
      });
      for (const d of claimed) launch(d);
      launched += claimed.length;
      if (released === 0) break;
    }
    return launched;
  }

  const waitForCompletion = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      waiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });

  const idle = async () => {
    while (running.size > 0) await Promise.allSettled([...running]);
  };

  return {
    async tick() {
      const free = concurrency - running.size;
      const claimed = await claimAndLaunch();
      // A full batch: there may be more due right now, go again at once.
      if (claimed > 0 && claimed === free) return claimed;
      if (running.size === 0) return claimed;
      // Slots busy, or nothing more due (or only saturated URLs): wake as soon as a send finishes.
      return (await waitForCompletion(config.workerPollMs)) ? 1 : claimed;
    },
    async drain() {
      let total = 0;
      for (;;) {
        const free = concurrency - running.size;
        const n = await claimAndLaunch();
        total += n;
        if (n === 0 && running.size === 0) return total;
        if (n > 0 && n === free) continue;
        if (running.size > 0) await waitForCompletion(60_000);
      }
    },
    idle,
    inFlight: () => running.size,
    async close() {
      await idle();
      await sender.close();
    },
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

async function deadLetterNotice(tx: DbOrTx, d: ClaimedDelivery, error: string | null, now: Date) {
  await notifyMembers(tx, {
    clientId: d.clientId,
    category: 'webhooks',
    severity: 'warning',
    title: 'Webhook delivery failed for good',
    body: `The ${d.eventType} event could not be delivered to ${d.url} after every retry (${error ?? 'no answer'}). Retry it from the deliveries list once the endpoint works.`,
    link: { resource_type: 'webhook_delivery', resource_id: d.id, path: `/webhooks/deliveries/${d.id}` },
    audience: { roles: OWNER_AND_DEVELOPER },
    at: now,
  });
  await recordActivity(tx, {
    clientId: d.clientId,
    action: 'webhook_delivery.dead_lettered',
    outcome: 'failure',
    at: now,
    target: { type: 'webhook_delivery', id: d.id, label: d.url },
    changes: { status: { from: d.status, to: 'dead_letter' } },
    metadata: { event_type: d.eventType, error },
  });
}
