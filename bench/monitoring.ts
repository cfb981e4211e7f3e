/**
 * Transaction-monitoring benchmark (`npm run bench:monitoring`): POST /monitoring/transactions with a
 * 20-rule policy (velocity, structuring, amount, country, customer and method rules) on a client
 * holding SMALL (default 1,000) and LARGE (default 1,000,000) monitored transactions, each on a
 * fresh database (DATABASE_URL's server, else PGlite) with its own service, side by side. Every
 * customer has the same history depth (BENCH_ROWS_PER_CUSTOMER, default 20, spread over 90 days) and
 * requests go to 50 of them, so the sizes differ only in the size of the client's table: the history
 * rules must read index ranges, never scan. Seeding is one INSERT ... SELECT generate_series. The
 * measured rounds alternate between the sizes; prints the medians and the LARGE/SMALL latency ratio.
 * Options (env): BENCH_DURATION (s per round, default 10), BENCH_ROUNDS (default 3),
 * BENCH_CONNECTIONS (default 4), BENCH_SMALL, BENCH_LARGE.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/client';
import { monitoringPolicies } from '../src/db/schema/index';
import { signToken } from '../src/modules/auth/sessions/tokens.service';
import { benchService, openBenchDatabase, seed } from './api';
import { waitReady } from './service-process';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const SMALL = Number(process.env.BENCH_SMALL ?? 1000);
const LARGE = Number(process.env.BENCH_LARGE ?? 1_000_000);
const PER_CUSTOMER = Number(process.env.BENCH_ROWS_PER_CUSTOMER ?? 20);
/** Requests go to the same number of customers at both sizes, so lock contention per customer is equal. */
const POOL = 50;

const r = (id: string, type: string, params: Record<string, unknown>, action = 'score', score = 5) => ({
  rule_id: id,
  name: id,
  type,
  params,
  enabled: true,
  action,
  score,
  remediation_type: null,
});

/** Twenty rules, nine of them reading the customer's history. */
export const BENCH_POLICY = {
  rules: [
    r('amt-1', 'amount_above', { amount: '1000.00', currency: 'EUR' }),
    r('amt-2', 'amount_above', { amount: '5000.00', currency: 'EUR' }, 'review'),
    r('amt-3', 'amount_above', { amount: '20000.00', currency: 'EUR' }, 'decline'),
    r('vc-1h', 'velocity_count', { count: 5, window_hours: 1 }),
    r('vc-24h', 'velocity_count', { count: 20, window_hours: 24 }),
    r('vc-7d', 'velocity_count', { count: 50, window_hours: 168 }),
    r('va-1h', 'velocity_amount', { amount: '2000.00', currency: 'EUR', window_hours: 1 }),
    r('va-24h', 'velocity_amount', { amount: '10000.00', currency: 'EUR', window_hours: 24 }),
    r('va-30d', 'velocity_amount', { amount: '50000.00', currency: 'EUR', window_hours: 720 }),
    r('st-1k', 'structuring', { threshold: '1000.00', currency: 'EUR', count: 3, window_hours: 48 }),
    r('st-10k', 'structuring', { threshold: '10000.00', currency: 'EUR', count: 3, window_hours: 168 }),
    r('st-5k', 'structuring', { threshold: '5000.00', currency: 'EUR', count: 2, window_hours: 72 }),
    r('geo-cp', 'country_in', { countries: ['IR', 'KP', 'SY'], party: 'counterparty' }, 'decline'),
    r('geo-cu', 'country_in', { countries: ['RU', 'BY'], party: 'customer' }, 'review'),
    r('unverified', 'customer_not_verified', {}, 'score', 10),
    r('new', 'new_customer', { days: 30 }, 'score', 10),
    r('cash', 'payment_method_in', { methods: ['cash'] }, 'review'),
    r('crypto', 'payment_method_in', { methods: ['crypto'] }),
    r('amt-usd', 'amount_above', { amount: '3000.00', currency: 'USD' }),
    r('amt-gbp', 'amount_above', { amount: '3000.00', currency: 'GBP' }),
  ],
  review_score: 50,
  decline_score: 100,
  sanctions: { enabled: true, action: 'review' },
  remediation_ttl_hours: 72,
  on_remediation_expiry: 'IN_REVIEW',
};

async function seedMonitoring(database: Database, clientId: string, accountId: string, count: number) {
  const customers = Math.max(1, Math.floor(count / PER_CUSTOMER));
  await database.db.insert(monitoringPolicies).values({
    clientId,
    version: 1,
    policy: BENCH_POLICY,
    updatedByAccountId: accountId,
  });
  const t0 = Date.now();
  await database.db.execute(sql`
    insert into monitored_transactions (id, client_id, client_reference, payload_hash, direction, amount, currency,
        occurred_at, payment_method, customer, subject_key, counterparty, search_text, decision, score,
        policy_version, created_at, updated_at)
    select gen_random_uuid(), ${clientId}::uuid, 'seed-' || g, md5(g::text), 'outbound',
           ((10 + g % 1990)::text || '.00')::numeric, 'EUR',
           now() - (g % 129600) * interval '1 minute', 'bank_transfer',
           jsonb_build_object('external_id', 'cust-' || (g % ${customers}), 'name', 'Customer ' || (g % ${customers})),
           'external:cust-' || (g % ${customers}),
           jsonb_build_object('name', 'Counterparty ' || g, 'country', 'FR'),
           'seed-' || g || E'\\ncounterparty ' || g || E'\\ncust-' || (g % ${customers}),
           'APPROVED', 0, 1, now() - (g % 129600) * interval '1 minute', now()
      from generate_series(1, ${count}) as g`);
  await database.db.execute(sql`vacuum analyze monitored_transactions`);
  const seconds = (Date.now() - t0) / 1000;
  console.log(
    `seeded ${count} monitored transactions over ${customers} customers in ${seconds.toFixed(1)} s`,
  );
  return { customers, seconds };
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

interface Started {
  rows: number;
  seedSeconds: number;
  opts: (prefix: string) => autocannon.Options;
  stop: () => Promise<void>;
}

/** A fresh database with `rows` monitored transactions and a running service on it. */
async function start(rows: number): Promise<Started> {
  const { base, jwtSecret, env } = await benchService();
  const { database, cleanup } = await openBenchDatabase(env, `svc_bench_mon${rows}`);
  await database.migrate();
  const s = await seed(database, 1);
  const { customers, seconds } = await seedMonitoring(database, s.clientId, s.accountId, rows);
  await database.close();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async () => {
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await cleanup();
  };
  try {
    // A longer deadline: the shared 2-core machine can take minutes to start tsx under load.
    await waitReady(base, child, { timeoutMs: 300_000 });
  } catch (err) {
    await stop();
    throw err;
  }
  const { token } = await signToken(
    new TextEncoder().encode(jwtSecret),
    {
      sub: s.clientId,
      type: 'client_access',
      actor_type: 'client_user',
      role: 'owner',
      account_id: s.accountId,
      environment: 'sandbox',
    },
    3600,
    new Date(),
  );
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let seq = 0;
  const opts = (prefix: string): autocannon.Options => ({
    url: `${base}/api/v1/monitoring/transactions`,
    method: 'POST',
    headers,
    requests: [
      {
        setupRequest: (req) => {
          const n = ++seq;
          const c = (n * 7919) % Math.min(customers, POOL);
          return {
            ...req,
            body: JSON.stringify({
              client_reference: `${prefix}-${n}`,
              direction: 'outbound',
              amount: `${(n % 1990) + 10}.00`,
              currency: 'EUR',
              payment_method: 'bank_transfer',
              customer: { external_id: `cust-${c}`, name: `Customer ${c}`, country: 'DE' },
              counterparty: { name: `Payee ${n}`, country: 'FR', account_identifier: `FR76${n}` },
            }),
          };
        },
      },
    ],
  });
  return { rows, seedSeconds: seconds, opts, stop };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * Both services run side by side and the measured rounds alternate small, large, small, …, so the
 * load of a shared machine hits both sizes alike; the medians of the rounds are reported.
 */
async function main() {
  console.log(
    `engine: ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}; ${CONNECTIONS} connections, ` +
      `${ROUNDS} alternating rounds of ${DURATION} s per size`,
  );
  const small = await start(SMALL);
  let large: Started | null = null;
  try {
    large = await start(LARGE);
    for (const x of [small, large]) await run({ ...x.opts('warm'), connections: 2, duration: 3 });
    const got = new Map<number, { rps: number[]; p50: number[]; p99: number[]; non2xx: number }>();
    for (let i = 0; i < ROUNDS; i++) {
      for (const x of [small, large]) {
        const res = await run({ ...x.opts(`r${i}`), connections: CONNECTIONS, duration: DURATION });
        const g = got.get(x.rows) ?? { rps: [], p50: [], p99: [], non2xx: 0 };
        g.rps.push(res.requests.average);
        g.p50.push(res.latency.p50);
        g.p99.push(res.latency.p99);
        g.non2xx += res.non2xx;
        got.set(x.rows, g);
        console.log(`round ${i + 1}, ${x.rows} rows: p50 ${res.latency.p50} ms, p99 ${res.latency.p99} ms`);
      }
    }
    console.log('\n| Monitored transactions | seed (s) | req/s | p50 (ms) | p99 (ms) | non-2xx |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    for (const x of [small, large]) {
      const g = got.get(x.rows)!;
      console.log(
        `| ${x.rows} | ${x.seedSeconds.toFixed(1)} | ${median(g.rps).toFixed(0)} | ${median(g.p50)} | ` +
          `${median(g.p99)} | ${g.non2xx} |`,
      );
    }
    const s = got.get(small.rows)!;
    const l = got.get(large.rows)!;
    console.log(
      `\nlatency ratio ${LARGE}/${SMALL} (medians): p50 ${(median(l.p50) / Math.max(median(s.p50), 0.01)).toFixed(2)}x, ` +
        `p99 ${(median(l.p99) / Math.max(median(s.p99), 0.01)).toFixed(2)}x`,
    );
    console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  } finally {
    await large?.stop();
    await small.stop();
  }
}

export const runMonitoringBench = main;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
