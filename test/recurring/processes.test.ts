/**
 * Recurring payments across real service processes (`node dist/server.js`, test/helpers/process.ts):
 * - a crash: the service is killed with SIGKILL once with every run scheduled and none attempted,
 *   and again while its worker is attempting them, then restarted on the same data. Every run is
 *   attempted once and succeeds: none lost, none doubled (one attempt, one platform transaction and
 *   one bank payment per run, one next run per definition);
 * - two service processes whose workers compete for the same due runs create and attempt each run
 *   exactly once. PGlite is a single-process engine, so this one runs on PostgreSQL only.
 * The processes run on the system clock: runs are scheduled for today, so they are due at once.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { testEngine } from '../helpers/db';
import { freePort, isolatedServiceEnv, type ServiceProcess, startService } from '../helpers/process';
import {
  callService,
  openServiceDatabase,
  type ServiceWorld,
  seedServiceWorld,
} from '../helpers/service-world';

const running: ServiceProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const s of running)
    if (s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  for (const c of cleanups) await c();
});

async function setup(extra: Record<string, string> = {}) {
  const iso = await isolatedServiceEnv();
  cleanups.push(iso.cleanup);
  const env = {
    ...iso.env,
    LOG_LEVEL: 'warn',
    SVC_WORKER_POLL_MS: '20',
    SVC_SANDBOX_BANK_SETTLE_SECONDS: '1',
    // A launch leased by a killed process is taken again after this (the lease is the stale period).
    SVC_IDEMPOTENCY_STALE_SECONDS: '10',
    ...extra,
  };
  return { env, world: await seedServiceWorld(env) };
}

async function start(env: Record<string, string>, port?: number, workers = true) {
  // PGlite replays its WAL after a SIGKILL, which is slow on a loaded machine.
  const s = await startService({ ...env, SVC_WORKERS_ENABLED: String(workers) }, port, {
    readyTimeoutMs: 180_000,
  });
  running.push(s);
  return s;
}

async function stop(s: ServiceProcess, signal: 'SIGKILL' | 'SIGTERM') {
  s.child.kill(signal);
  const code = await s.exited;
  if (signal === 'SIGTERM') expect(code).toBe(0);
}

const today = () => new Date().toISOString().slice(0, 10);

/** N monthly recurring payments due today, authorized through the sandbox (the first run scheduled). */
async function createAuthorized(s: ServiceProcess, world: ServiceWorld, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await callService(s.baseUrl, world, '/recurring-payments', {
      method: 'POST',
      headers: { 'x-idempotency-key': `proc-${randomBytes(6).toString('hex')}` },
      body: {
        project_id: world.projectId,
        user_id: world.userId,
        currency: 'EUR',
        amount: `${10 + i}.00`,
        reference: `PROC-${i}`,
        schedule: { interval: 'month', interval_count: 1, start_date: today() },
        mandate: {
          max_amount_per_payment: '100.00',
          periodic_limit: { amount: '1000.00', period: 'month', alignment: 'calendar' },
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.definition_id as string);
  }
  for (const id of ids) {
    const res = await callService(s.baseUrl, world, `/sandbox/recurring-payments/${id}/simulate`, {
      method: 'POST',
      body: { action: 'authorize' },
    });
    expect(res.body.status).toBe('active');
  }
  return ids;
}

async function recurringTransactions(s: ServiceProcess, world: ServiceWorld, status?: string) {
  const q = status ? `&status=${status}` : '';
  const res = await callService(s.baseUrl, world, `/transactions?origin_type=recurring&page_size=200${q}`);
  return res.body as {
    transactions: { transaction_id: string; status: string; origin: { id: string } }[];
    pagination: { total: number };
  };
}

async function waitAllSucceeded(
  s: ServiceProcess,
  world: ServiceWorld,
  env: Record<string, string>,
  n: number,
) {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const { pagination } = await recurringTransactions(s, world, 'success');
    if (pagination.total >= n) return;
    if (Date.now() > deadline)
      throw new Error(`only ${pagination.total} of ${n} runs succeeded; open runs: ${await openRuns(env)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every definition: run 1 succeeded with one attempt and one transaction, run 2 scheduled; nothing else. */
async function expectExactlyOnce(s: ServiceProcess, world: ServiceWorld, ids: string[]) {
  for (const id of ids) {
    const { body } = await callService(s.baseUrl, world, `/recurring-payments/${id}/runs?page_size=200`);
    const runs = (body.runs as Record<string, any>[]).sort((a, b) => a.sequence - b.sequence);
    expect(runs.map((r) => [r.sequence, r.status, r.scheduled_for.slice(0, 10)])).toEqual([
      [1, 'succeeded', today()],
      [2, 'scheduled', expect.any(String)],
    ]);
    expect(runs[0]!.attempts).toHaveLength(1);
    expect(runs[0]!.attempts[0]).toMatchObject({
      attempt_number: 1,
      trigger: 'schedule',
      outcome: 'succeeded',
    });
  }
  const txs = await recurringTransactions(s, world);
  expect(txs.pagination.total).toBe(ids.length);
  expect(txs.transactions.every((t) => t.status === 'success')).toBe(true);
  expect(new Set(txs.transactions.map((t) => t.origin.id))).toEqual(new Set(ids));
}

/** Diagnostics for a run that did not finish: its attempt, transaction, bank session and bank payment. */
async function openRuns(env: Record<string, string>): Promise<string> {
  // PGlite admits one process: a stuck service is stopped first (the test fails anyway).
  if (!env.DATABASE_URL)
    for (const s of running)
      if (s.child.exitCode === null && s.child.signalCode === null) await stop(s, 'SIGKILL');
  const db = await openServiceDatabase(env);
  try {
    const res = await db.db.execute(sql`
      select r.sequence, r.status, a.attempt_number, a.launch_due_at, a.launch_error, a.outcome,
             t.status as tx_status, t.provider_status as tx_provider_status,
             s.provider_status as session_status, p.outcome as bank_outcome, p.settle_at
        from recurring_runs r
        left join recurring_attempts a on a.run_id = r.id
        left join transactions t on t.id = a.transaction_id
        left join sandbox_bank_sessions s on s.ref_id = t.ref_id
        left join sandbox_bank_mandate_payments p on p.ref_id = t.ref_id
       where r.sequence = 1 and r.status <> 'succeeded'`);
    return JSON.stringify(rowsOf(res));
  } finally {
    await db.close();
  }
}

/** What the database holds per run: attempts and bank payments (read with the service stopped on PGlite). */
async function countRows(env: Record<string, string>) {
  const db = await openServiceDatabase(env);
  try {
    const res = await db.db.execute(sql`
      select (select count(*)::int from recurring_runs where status = 'scheduled') as scheduled,
             (select count(*)::int from recurring_runs) as runs,
             (select count(*)::int from recurring_attempts) as attempts,
             (select count(*)::int from recurring_attempts where launch_due_at is not null) as unlaunched,
             (select count(*)::int from sandbox_bank_mandate_payments) as bank_payments,
             (select count(*)::int from (select ref_id from sandbox_bank_mandate_payments
                                          group by ref_id having count(*) > 1) d) as doubled`);
    type Counts = Record<
      'scheduled' | 'runs' | 'attempts' | 'unlaunched' | 'bank_payments' | 'doubled',
      number
    >;
    return rowsOf<Counts>(res)[0]!;
  } finally {
    await db.close();
  }
}

describe('recurring payments in real service processes', () => {
  it('SIGKILL between scheduling and attempting, and again mid-attempt; after restart no run is lost or doubled', async () => {
    const N = 12;
    const { env, world } = await setup();
    const port = await freePort();
    // 1. Workers off: every first run is scheduled, none attempted. Then the process dies.
    let svc = await start(env, port, false);
    const ids = await createAuthorized(svc, world, N);
    await stop(svc, 'SIGKILL');
    expect(await countRows(env)).toMatchObject({ scheduled: N, runs: N, attempts: 0, bank_payments: 0 });

    // 2. Workers on: killed as soon as the first transaction exists, while runs are being attempted.
    svc = await start(env, port);
    for (;;) {
      if ((await recurringTransactions(svc, world)).pagination.total > 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await stop(svc, 'SIGKILL');
    const atCrash = await countRows(env);
    // The crash caught work between scheduling and attempting: runs not started or attempts not launched.
    expect(atCrash.scheduled + atCrash.unlaunched).toBeGreaterThan(0);
    expect(atCrash.doubled).toBe(0);

    // 3. Restart on the same data: everything finishes exactly once.
    svc = await start(env, port);
    await waitAllSucceeded(svc, world, env, N);
    await expectExactlyOnce(svc, world, ids);
    await stop(svc, 'SIGTERM');
    expect(await countRows(env)).toMatchObject({
      runs: 2 * N,
      scheduled: N,
      attempts: N,
      unlaunched: 0,
      bank_payments: N,
      doubled: 0,
    });
  }, 900_000);

  it.skipIf(testEngine() !== 'postgres')(
    'two service processes competing for the same due runs create and attempt each exactly once',
    async () => {
      const N = 12;
      const { env, world } = await setup({ SVC_WORKER_POLL_MS: '10' });
      const setupNode = await start(env, undefined, false);
      const ids = await createAuthorized(setupNode, world, N);
      await stop(setupNode, 'SIGTERM');
      // Both nodes start with every first run due and compete for them (and for the next runs).
      const [a, b] = await Promise.all([start(env), start(env)]);
      await waitAllSucceeded(a!, world, env, N);
      await expectExactlyOnce(b!, world, ids);
      expect(await countRows(env)).toMatchObject({
        runs: 2 * N,
        scheduled: N,
        attempts: N,
        bank_payments: N,
        doubled: 0,
      });
      await Promise.all([stop(a!, 'SIGTERM'), stop(b!, 'SIGTERM')]);
    },
    900_000,
  );
});
