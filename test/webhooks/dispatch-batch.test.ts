/**
 * The dispatcher's batched claims and held rounds: several dispatchers claiming batches never send
 * a delivery twice and write one attempt per send; the per-URL limit holds at the receiver; a held
 * delivery whose lease ran out while it waited for a slot is handed back, not sent (another worker
 * may already have it); an idle worker picks a new event up within its own poll
 * (SVC_WEBHOOK_POLL_MS), not the general worker poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher } from '../../src/outbox/dispatcher';
import { createHttpSender } from '../../src/outbox/http-sender';
import { createWebhookDeliveryWorker } from '../../src/workers/webhook-delivery';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { attemptsOf, deliveriesOfEvent, emitTestEvent, setMainWebhook } from '../helpers/webhooks';

let ctx: TestContext;
let rx: Receiver;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_WEBHOOK_TIMEOUT_MS: '300' } });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await ctx.close();
});

/** A sender that waits long enough for a loaded machine (the 300 ms timeout is for the lease). */
const patient = () =>
  createHttpSender({
    timeoutMs: 30_000,
    maxResponseBytes: 1024,
    guardPrivateNetworks: false,
    connectionsPerOrigin: 8,
  });

async function clientAt(path: string) {
  const c = await createTestClient(ctx);
  await setMainWebhook(ctx, c.clientId, `${rx.url}${path}`);
  return c;
}

describe('batched claims', () => {
  it('three dispatchers: every delivery sent once, one attempt each, at most the per-URL limit in flight per dispatcher', async () => {
    const paths = ['/batch-a', '/batch-b', '/batch-c'];
    const open = new Map<string, number>();
    const peak = new Map<string, number>();
    const prev = rx.behaviour;
    rx.behaviour = async (req, i) => {
      if (!paths.includes(req.path)) return prev(req, i);
      const n = (open.get(req.path) ?? 0) + 1;
      open.set(req.path, n);
      peak.set(req.path, Math.max(peak.get(req.path) ?? 0, n));
      await new Promise((r) => setTimeout(r, 5));
      open.set(req.path, (open.get(req.path) ?? 1) - 1);
      return { status: 200 };
    };
    const events: string[] = [];
    for (const path of paths) {
      const c = await clientAt(path);
      for (let i = 0; i < 20; i++)
        events.push((await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { i }))!.id);
    }
    const racers = [1, 2, 3].map(() =>
      createDeliveryDispatcher(ctx.deps, { concurrency: 4, perUrlLimit: 1, sender: patient() }),
    );
    await Promise.all(racers.map((d) => d.drain()));
    await Promise.all(racers.map((d) => d.close()));

    const seen = paths.flatMap((p) => rx.on(p)).map((r) => String(r.headers['x-svc-event-id']));
    expect(seen).toHaveLength(events.length);
    expect(new Set(seen)).toEqual(new Set(events));
    for (const p of paths) expect(peak.get(p)).toBeLessThanOrEqual(3);
    for (const id of events) {
      const [d] = await deliveriesOfEvent(ctx, id);
      expect(d!.status).toBe('succeeded');
      expect(d!.lockedUntil).toBeNull();
      const attempts = await attemptsOf(ctx, d!.id);
      expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'succeeded']]);
    }
  });

  it('a held delivery whose lease ran out while it waited is handed back, not sent by the first dispatcher', async () => {
    const path = '/held-lease';
    const prev = rx.behaviour;
    // The first request to this path answers late: the second delivery waits, held, meanwhile.
    let first = true;
    rx.behaviour = (req, i) => {
      if (req.path !== path) return prev(req, i);
      if (!first) return { status: 200 };
      first = false;
      return { status: 200, delayMs: 800 };
    };
    const c = await clientAt(path);
    const e1 = (await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { n: 1 }))!;
    // Due at the same moment: claimed in id order (e1 first).
    const e2 = (await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { n: 2 }))!;
    const before = rx.requests.length;
    const a = createDeliveryDispatcher(ctx.deps, { concurrency: 1, perUrlLimit: 1, sender: patient() });
    const aDone = a.drain();
    await rx.waitFor(before + 1);
    // Both leases (5.6 s at this timeout) run out on the service clock while e1 is in flight at A.
    ctx.clock.advanceSeconds(10);
    const b = createDeliveryDispatcher(ctx.deps, { concurrency: 4, sender: patient() });
    await b.drain();
    await aDone;
    await Promise.all([a.close(), b.close()]);

    const got = rx.on(path).map((r) => r.headers['x-svc-event-id']);
    // e1 may arrive twice (its lease ran out in flight: at least once), e2 exactly once (from B).
    expect(got.filter((id) => id === e2.id)).toHaveLength(1);
    expect(got.filter((id) => id === e1.id).length).toBeGreaterThanOrEqual(1);
    const [d2] = await deliveriesOfEvent(ctx, e2.id);
    expect(d2!.status).toBe('succeeded');
    expect((await attemptsOf(ctx, d2!.id)).map((x) => x.outcome)).toEqual(['succeeded']);
  });

  it('an idle worker sends a new event within the webhook poll, however long the general worker poll', async () => {
    const path = '/wake';
    const c = await clientAt(path);
    const config = { ...ctx.deps.config, workerPollMs: 60_000, webhookPollMs: 50 };
    const worker = createWebhookDeliveryWorker({ ...ctx.deps, config });
    worker.start();
    try {
      // Let it go idle (nothing due), then write the event.
      await worker.runOnce();
      const t0 = Date.now();
      const ev = (await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { n: 1 }))!;
      while (rx.on(path).length === 0 && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
      expect(rx.on(path).map((r) => r.headers['x-svc-event-id'])).toEqual([ev.id]);
      // Far below the 60 s general poll (the bound is loose for a loaded machine).
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      await worker.stop();
    }
  });
});
