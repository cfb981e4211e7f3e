/**
 * Delivery benchmark: events per second from the status change (the transaction that writes the
 * event) to a 2xx at the merchants' endpoints, with p50/p99 end-to-end delay. Runs the real outbox,
 * fan-out and delivery worker in process, over PGlite (default) or PostgreSQL (BENCH_DATABASE_URL);
 * the endpoints are another process (bench/webhook-receiver.mjs), one URL per merchant, the events
 * spread over BENCH_MERCHANTS merchants (default 4: one merchant may use only a quarter of the
 * worker's slots, BENCH_MERCHANTS=1 shows that cap).
 *
 *   npm run bench:delivery                      # 2000 events, PGlite
 *   BENCH_EVENTS=5000 BENCH_DATABASE_URL=postgres://... npm run bench:delivery
 *   BENCH_DELIVERY_ONLY=backlog npm run bench:delivery   # write every event first, then time the worker alone
 * In the suite the backlog is BENCH_BACKLOG_EVENTS (default 10,000) events; a last backlog run
 * sends everything to one merchant.
 */

import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { assembleDeps } from '../src/compose';
import { DEFAULT_WEBHOOK_CONCURRENCY, loadConfig } from '../src/config';
import { openPglite, openPostgres } from '../src/db/client';
import { clients } from '../src/db/schema/index';
import { CORE_EVENT_DATA } from '../src/modules/webhooks/event-data/core.schemas';
import { emitEvent } from '../src/outbox/emit';
import { deriveSecrets } from '../src/shared/crypto';
import { newId } from '../src/shared/ids';
import { createWebhookDeliveryWorker } from '../src/workers/webhook-delivery';

export interface DeliveryBenchResult {
  engine: string;
  mode: string;
  events: number;
  concurrency: number;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function runDeliveryBench(
  opts: {
    events?: number;
    concurrency?: number;
    databaseUrl?: string | null;
    /** Concurrent writers in the closed-loop mode. */
    producers?: number;
    /** Events per second in the open-loop mode; 0 = closed loop (maximum throughput). */
    rate?: number;
    /** Write every event first, then start the worker: the worker's drain rate alone (delivery capacity). */
    backlog?: boolean;
    /** Merchants (clients with their own webhook URL) the events are spread over; default 4. */
    merchants?: number;
  } = {},
): Promise<DeliveryBenchResult> {
  const events = opts.events ?? 2000;
  const producers = opts.producers ?? 8;
  const rate = opts.rate ?? 0;
  const concurrency = opts.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY;
  const merchantCount = opts.merchants ?? Number(process.env.BENCH_MERCHANTS ?? 4);
  const config = loadConfig({
    SVC_DATA_DIR: `/tmp/svc-bench-${randomBytes(4).toString('hex')}`,
    SVC_WEBHOOK_CONCURRENCY: String(concurrency),
    // One merchant endpoint: by default it may use a quarter of the slots (fairness); raise to measure raw capacity.
    SVC_WEBHOOK_PER_URL_CONCURRENCY: process.env.BENCH_PER_URL_CONCURRENCY,
    SVC_WORKER_POLL_MS: '10',
    LOG_LEVEL: 'silent',
  });
  const database = opts.databaseUrl
    ? await openPostgres(opts.databaseUrl, { poolSize: 10 })
    : await openPglite({ dataDir: null });
  await database.migrate();
  const secrets = deriveSecrets(
    'bench-jwt-secret-long-enough-0123456789abcdef',
    randomBytes(32).toString('base64'),
  );
  const mailer = { send: async () => {} };
  const deps = assembleDeps({ config, database, secrets, mailer, log: pino({ level: 'silent' }) });

  // Wall-clock ms (performance.timeOrigin + now) on both sides: the receiver is another process.
  const wallNow = () => performance.timeOrigin + performance.now();
  const created = new Map<string, number>();
  const arrivals = new Map<string, number>();
  let resolveDone: () => void;
  const done = new Promise<void>((r) => {
    resolveDone = r;
  });
  const receiver = fork(fileURLToPath(new URL('./webhook-receiver.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    receiver.once('error', reject);
    receiver.on('message', (m: { port?: number; arrivals?: [string, number][] }) => {
      if (m.port) resolve(m.port);
      for (const [id, at] of m.arrivals ?? []) {
        if (arrivals.has(id)) continue; // a retry of a delivered event
        arrivals.set(id, at);
        if (arrivals.size === events) resolveDone();
      }
    });
  });
  // `merchants` clients, each with its own endpoint: one URL may use only a quarter of the worker's
  // slots and one client half of them (fairness), so a single merchant cannot show its capacity.
  const merchants = await deps.db
    .insert(clients)
    .values(
      Array.from({ length: merchantCount }, (_, n) => ({
        companyName: `Bench ${n}`,
        email: `bench-${newId()}@example.com`,
        status: 'active' as const,
        webhookUrl: `http://127.0.0.1:${port}/hook/${n}`,
        webhookEnabled: true,
      })),
    )
    .returning({ id: clients.id });

  // The status changes come from API nodes, not the worker's process: here at least their own pool.
  const writers = opts.databaseUrl ? await openPostgres(opts.databaseUrl, { poolSize: 10 }) : database;
  const worker = createWebhookDeliveryWorker(deps);
  if (!opts.backlog) worker.start();
  // One status change: one transaction writes the event and its delivery row.
  let emitted = 0;
  const emitOne = async () => {
    const key = newId();
    const clientId = merchants[emitted++ % merchants.length]!.id;
    const id = await writers.db.transaction(
      async (tx) =>
        (
          await emitEvent(tx, {
            clientId,
            type: 'payment.status_changed',
            data: {
              ...CORE_EVENT_DATA['payment.status_changed'].example,
              transaction_id: key,
              previous_payment_status: 'pending',
              current_payment_status: 'processing',
              amount: '10.00',
              currency: 'EUR',
            },
            occurredAt: new Date(),
            dedupKey: `bench:${key}`,
          })
        )?.id,
    );
    // The status change happens at the commit: the delay runs from there (a write waiting for a
    // pooled connection is the bench's own queue, not delivery's).
    if (id) created.set(id, wallNow());
  };
  // Closed loop, `producers` concurrent writers, as fast as the database takes them.
  async function writeClosedLoop() {
    let next = 0;
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < events) {
          next++;
          await emitOne();
        }
      }),
    );
  }
  let firstAt = wallNow();
  if (opts.backlog) {
    await writeClosedLoop();
    firstAt = wallNow();
    worker.start();
  } else if (rate > 0) {
    // Open loop at a fixed rate: latency without queueing behind a saturated worker.
    const pending: Promise<void>[] = [];
    for (let i = 0; i < events; i++) {
      const due = firstAt + (i * 1000) / rate;
      const wait = due - wallNow();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(emitOne());
    }
    await Promise.all(pending);
  } else await writeClosedLoop();
  await done;
  await worker.stop();
  receiver.disconnect();
  if (writers !== database) await writers.close();
  await database.close();
  const delays = [...arrivals].map(([id, at]) => at - created.get(id)!).sort((a, b) => a - b);
  const lastAt = Math.max(...arrivals.values());
  return {
    engine: database.engine,
    mode: `${opts.backlog ? 'backlog drain' : rate > 0 ? `paced at ${rate}/s` : `max rate, ${producers} writers`}, ${merchantCount} merchant endpoint${merchantCount === 1 ? '' : 's'}, ${config.webhookPerUrlConcurrency ?? Math.ceil(concurrency / 4)} in flight per URL`,
    events,
    concurrency,
    eventsPerSecond: Math.round((events / (lastAt - firstAt)) * 1000),
    p50Ms: Math.round(percentile(delays, 50) * 10) / 10,
    p99Ms: Math.round(percentile(delays, 99) * 10) / 10,
    maxMs: Math.round(delays[delays.length - 1]! * 10) / 10,
  };
}

export function formatDeliveryBench(r: DeliveryBenchResult): string {
  return `webhook delivery (${r.engine}, ${r.mode}, ${r.events} events, worker concurrency ${r.concurrency}): ${r.eventsPerSecond} events/s status change -> 2xx; end-to-end p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, max ${r.maxMs} ms`;
}

/** With DATABASE_URL (like the API bench), runs in a fresh database created on that server and dropped after. */
async function withBenchDatabase<T>(run: (url: string | null) => Promise<T>): Promise<T> {
  if (process.env.BENCH_DATABASE_URL) return run(process.env.BENCH_DATABASE_URL);
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return run(null);
  const name = `svc_bench_delivery_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  try {
    return await run(u.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Maximum throughput with writers, the worker draining a backlog, then latency at a steady rate. */
export async function runDeliveryBenchSuite(): Promise<DeliveryBenchResult[]> {
  return withBenchDatabase(async (databaseUrl) => {
    const concurrency = Number(process.env.BENCH_CONCURRENCY ?? DEFAULT_WEBHOOK_CONCURRENCY);
    if (process.env.BENCH_DELIVERY_ONLY === 'backlog')
      return [
        await runDeliveryBench({
          events: Number(process.env.BENCH_EVENTS ?? 2000),
          concurrency,
          databaseUrl,
          backlog: true,
        }),
      ];
    const max = await runDeliveryBench({
      events: Number(process.env.BENCH_EVENTS ?? 2000),
      concurrency,
      databaseUrl,
    });
    // The worker alone on a backlog: what delivery sustains, since the max-rate run above is bound
    // by its own writers (the status changes it makes) as much as by the worker.
    const backlogEvents = Number(process.env.BENCH_BACKLOG_EVENTS ?? 10_000);
    const drain = await runDeliveryBench({ events: backlogEvents, concurrency, databaseUrl, backlog: true });
    const paced = await runDeliveryBench({
      events: Number(process.env.BENCH_PACED_EVENTS ?? 500),
      rate: Number(process.env.BENCH_RATE ?? Math.max(10, Math.floor(max.eventsPerSecond / 2))),
      concurrency,
      databaseUrl,
    });
    // One merchant's endpoint alone: the fairness cap (a quarter of the worker's slots per URL).
    const oneMerchant = await runDeliveryBench({
      events: Math.min(backlogEvents, 3000),
      concurrency,
      databaseUrl,
      backlog: true,
      merchants: 1,
    });
    return [max, drain, paced, oneMerchant];
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await runDeliveryBenchSuite()) console.log(formatDeliveryBench(r));
}
