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
import { recordActivity } from '../modules/activity/activity-writer.service';
import { notify as notifyMembers, OWNER_AND_DEVELOPER } from '../modules/notifications/notify.service';
import {
  isSuccessStatus,
  nextDeliveryStatus,
  parseRetryAfter,
  retryDelaySeconds,
} from '../modules/webhooks/webhooks.machine';
import { createAttemptRecorder } from './attempt-recorder';
import {
  type AttemptRecord,
  abandonDelivery,
  type ClaimedDelivery,
  claimDueDeliveries,
  releaseDeliveries,
} from './delivery-store';
import { createHttpSender, type HttpSender, type SendResult } from './http-sender';
import { createSigner } from './signer';

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
      allowedPrivateTargets: config.webhookAllowedPrivateTargets,
      // Fairness is enforced per URL and per client above; an origin shared by many URLs (one SaaS
      // host for many merchants) must not queue every request behind a slow one.
      connectionsPerOrigin: concurrency,
    });
  // The longest possible attempt (headers deadline + capped body read); the lease outlives it.
  const attemptMaxMs = config.webhookTimeoutMs * 2;
  const leaseMs = attemptMaxMs + 5000;
  const backoff = config.webhookBackoffSeconds;
  const perClientLimit = opts.perClientLimit ?? Math.max(perUrlLimit, Math.ceil(concurrency / 2));
  const signer = createSigner(deps);
  /** Sends in flight (each holds a slot until its response, or failure, is in). */
  const sending = new Set<Promise<void>>();
  /** Claimed (leased) and waiting for a slot: at most one more round per URL, client and process. */
  const queue: ClaimedDelivery[] = [];
  const inFlightUrl = new Map<string, number>();
  const inFlightClient = new Map<string, number>();
  const heldUrl = new Map<string, number>();
  const heldClient = new Map<string, number>();
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
  const recorder = createAttemptRecorder(
    deps,
    (tx, r) => deadLetterNotice(tx, r.delivery, r.error, r.now),
    notify,
  );

  function outcome(d: ClaimedDelivery, startedAt: Date, res: SendResult): AttemptRecord {
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
    return {
      delivery: d,
      startedAt,
      durationMs: res.durationMs,
      responseStatus: res.status,
      responseBody: res.bodySnippet,
      error: ok ? null : (res.error ?? `HTTP ${res.status}`),
      status,
      nextAttemptAt,
      now,
    };
  }

  /** Sends one delivery; the result is recorded in the next batch, after the slot is free again. */
  async function sendOne(d: ClaimedDelivery): Promise<AttemptRecord | null> {
    const startedAt = deps.clock.now();
    let headers: Record<string, string> | null;
    try {
      headers = await signer.headers(d);
    } catch (err) {
      // Unreadable secret (e.g. a changed data key): a failed attempt, not a silent loop.
      deps.log.error({ err, deliveryId: d.id }, 'webhook signing secret unavailable');
      const res = { status: null, headers: {}, bodySnippet: null, durationMs: 0, refused: true };
      return outcome(d, startedAt, { ...res, error: 'signing secret unavailable' });
    }
    if (headers === null) {
      await abandonDelivery(deps.db, d, startedAt, 'destination deleted');
      return null;
    }
    return outcome(d, startedAt, await sender.post(d.url, headers, d.body));
  }

  function launch(d: ClaimedDelivery) {
    bump(inFlightUrl, d.url, 1);
    bump(inFlightClient, d.clientId, 1);
    const p: Promise<void> = sendOne(d)
      .then((record) => {
        if (record) recorder.add(record);
      })
      .catch((err) => deps.log.error({ err, deliveryId: d.id }, 'webhook delivery attempt failed to record'))
      .finally(() => {
        bump(inFlightUrl, d.url, -1);
        bump(inFlightClient, d.clientId, -1);
        bump(heldUrl, d.url, -1);
        bump(heldClient, d.clientId, -1);
        sending.delete(p);
        launchQueued();
        notify();
      });
    sending.add(p);
  }

  /** Starts what the held queue allows now, oldest due first; hands back what waited too long. */
  function launchQueued() {
    const late: ClaimedDelivery[] = [];
    // A lease is on the service clock (the claim's `now`), so is this check.
    const latest = deps.clock.now().getTime() + attemptMaxMs + 1000;
    for (let i = 0; i < queue.length && sending.size < concurrency; ) {
      const d = queue[i]!;
      if (d.leasedUntil < latest) {
        // Its lease would run out during the attempt: another worker could send it too.
        queue.splice(i, 1);
        bump(heldUrl, d.url, -1);
        bump(heldClient, d.clientId, -1);
        late.push(d);
      } else if (
        (inFlightUrl.get(d.url) ?? 0) < perUrlLimit &&
        (inFlightClient.get(d.clientId) ?? 0) < perClientLimit
      ) {
        queue.splice(i, 1);
        launch(d);
      } else i++;
    }
    if (late.length > 0)
      void releaseDeliveries(deps.db, late).catch((err) =>
        deps.log.error({ err }, 'webhook delivery release failed; the lease will run out'),
      );
  }

  // A process holds at most twice what it may send at once: the slots in use and one more round.
  const room = (held: Map<string, number>, limit: number) => {
    const rooms: Record<string, number> = {};
    const full: string[] = [];
    for (const [k, n] of held) {
      if (n >= 2 * limit) full.push(k);
      else rooms[k] = 2 * limit - n;
    }
    return { rooms, full };
  };

  /**
   * Claims into the free room and launches what the slots allow. When rows were passed over for a
   * URL's or client's room, claims again with those now excluded, so other targets fill the room.
   */
  async function claimAndLaunch(): Promise<{ claimed: number; asked: number }> {
    launchQueued();
    const asked = 2 * concurrency - sending.size - queue.length;
    if (asked <= 0 || recorder.backlog() > 2 * concurrency) return { claimed: 0, asked: 0 };
    const clientRoom = perClientLimit + perUrlLimit;
    let total = 0;
    for (let round = 0; round < 4 && total < asked; round++) {
      const urls = room(heldUrl, perUrlLimit);
      const clientsHeld = room(heldClient, clientRoom / 2);
      const { claimed, passedOver } = await claimDueDeliveries(deps.db, {
        now: deps.clock.now(),
        limit: asked - total,
        leaseMs,
        firstDelaySeconds: backoff[0] ?? 0,
        saturatedUrls: urls.full,
        saturatedClients: clientsHeld.full,
        urlRoom: { default: 2 * perUrlLimit, held: urls.rooms },
        clientRoom: { default: clientRoom, held: clientsHeld.rooms },
      });
      for (const d of claimed) {
        bump(heldUrl, d.url, 1);
        bump(heldClient, d.clientId, 1);
        queue.push(d);
      }
      total += claimed.length;
      if (claimed.length > 0) queue.sort((x, y) => x.dueAt - y.dueAt);
      launchQueued();
      if (passedOver === 0) break;
    }
    return { claimed: total, asked };
  }

  const waitForCompletion = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      waiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });

  const busy = () => sending.size > 0 || queue.length > 0 || recorder.backlog() > 0;
  const idle = async () => {
    while (sending.size > 0 || queue.length > 0) {
      if (sending.size > 0) await Promise.allSettled([...sending]);
      else launchQueued();
    }
    await recorder.flushed();
  };

  return {
    async tick() {
      const { claimed, asked } = await claimAndLaunch();
      // A full claim: there may be more due right now, go again at once.
      if (claimed > 0 && claimed === asked) return claimed;
      if (!busy()) return claimed;
      // Slots busy, or nothing more due (or only saturated URLs): wake as soon as a send finishes.
      return (await waitForCompletion(config.webhookPollMs)) ? 1 : claimed;
    },
    async drain() {
      let total = 0;
      for (;;) {
        const { claimed, asked } = await claimAndLaunch();
        total += claimed;
        if (claimed === 0 && !busy()) return total;
        if (claimed > 0 && claimed === asked) continue;
        if (busy()) await waitForCompletion(60_000);
      }
    },
    idle,
    inFlight: () => sending.size,
    async close() {
      // Held but never started: back to the pool for any worker at once.
      const held = queue.splice(0);
      await idle();
      if (held.length > 0) await releaseDeliveries(deps.db, held).catch(() => {});
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
    item: { type: 'webhook_delivery', id: d.id },
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
