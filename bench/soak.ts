/**
 * `npm run bench:soak -- --engine pglite|postgres|cluster [--minutes 30] [--rate 20]` (not in CI):
 * mixed traffic at a fixed rate for a long time, sampling every node's memory, heap and event-loop
 * delay (its /metrics), the database's connections and the tables that must stay bounded, then
 * the slope of each after a warm-up. Targets (docs/performance.md, "Soak"): RSS growth under 10%
 * after the first 5 minutes, peak RSS under 300 MB per node on PostgreSQL.
 *
 * Traffic per second, as shares of `--rate`: payment-link creations 35%, single reads 20%, lists
 * 20%, checkouts completed by the sandbox bank (each delivers webhooks to a local receiver) 15%,
 * refunds of completed payments 5%, logins 5%.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sandboxBootstrap } from '../src/cli/sandbox-bootstrap';
import { startCluster } from './cluster/harness';
import { freePort, waitReady } from './service-process';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '20' },
    'sample-seconds': { type: 'string', default: '10' },
    'warmup-minutes': { type: 'string', default: '5' },
  },
});
const ENGINE = values.engine as 'pglite' | 'postgres' | 'cluster';
if (!['pglite', 'postgres', 'cluster'].includes(ENGINE))
  throw new Error('--engine is pglite, postgres or cluster');
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const SAMPLE_MS = Number(values['sample-seconds']) * 1000;
const WARMUP_MIN = Math.min(Number(values['warmup-minutes']), MINUTES / 2);
const ROOT = path.resolve(import.meta.dirname, '..');

interface Target {
  url: string;
  nodeUrls: string[];
  dataDir: string;
  databaseUrl: string | null;
  stop(): Promise<void>;
}

async function startPglite(): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-soak-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['dist/server.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, { timeoutMs: 90_000, pollMs: 100 });
  return {
    url,
    nodeUrls: [url],
    dataDir,
    databaseUrl: null,
    async stop() {
      child.kill('SIGINT');
      await new Promise((r) => child.on('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startTarget(): Promise<Target> {
  if (ENGINE === 'pglite') {
    const { execFileSync } = await import('node:child_process');
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
    return startPglite();
  }
  const c = await startCluster({ nodes: ENGINE === 'cluster' ? 3 : 1, env: { LOG_LEVEL: 'error' } });
  return {
    url: c.url,
    nodeUrls: c.nodes.map((n) => n.url),
    dataDir: c.dataDir,
    databaseUrl: c.databaseUrl,
    stop: () => c.stop(),
  };
}

/** Prometheus text: the value of a metric without labels (or the first sample). */
function metric(text: string, name: string): number | null {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

interface Sample {
  t: number; // minutes since start
  rssMb: number[];
  heapMb: number[];
  lagP99Ms: number[];
  connections: number | null;
  jobsBacklog: number | null;
  deliveriesDue: number | null;
  idempotencyRows: number | null;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const target = await startTarget();
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
let db: pg.Client | null = null;
try {
  const s = await sandboxBootstrap(
    { dataDir: target.dataDir },
    {
      baseUrl: target.url,
      webhookUrl: hookUrl,
      returnUrl: 'https://shop.example.com/return',
      fresh: true,
      activationTimeoutMs: 120_000,
      log: () => {},
    },
  );
  const tokenRes = await fetch(`${target.url}/api/v1/auth/api-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: s.api_key, api_secret: s.api_secret }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (target.databaseUrl) {
    db = new pg.Client({ connectionString: target.databaseUrl });
    await db.connect();
  }

  const created: string[] = [];
  const completed: string[] = [];
  const counts: Record<string, number> = {};
  const failures: Record<string, number> = {};
  const firstBodies: Record<string, string> = {};
  const call = async (
    op: string,
    method: string,
    url: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ) => {
    try {
      const res = await fetch(`${target.url}/api/v1${url}`, {
        method,
        headers: { ...headers, ...extra },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      counts[op] = (counts[op] ?? 0) + 1;
      if (res.status >= 400 && !(op === 'refund' && res.status < 500)) {
        const k = `${op} ${res.status}`;
        failures[k] = (failures[k] ?? 0) + 1;
        // The first answer of each kind of failure, to tell the balancer's 503 from the service's.
        firstBodies[k] ??= text.replace(/\s+/g, ' ').slice(0, 160);
        return null;
      }
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch (err) {
      const k = `${op} ${String(err).slice(0, 60)}`;
      failures[k] = (failures[k] ?? 0) + 1;
      return null;
    }
  };
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];
  const operation = async () => {
    const r = Math.random();
    if (r < 0.35 || created.length === 0) {
      const t = await call(
        'create',
        'POST',
        '/checkout/paylink',
        {
          amount: `${1 + Math.floor(Math.random() * 500)}.00`,
          currency: 'EUR',
          project_id: s.project_id,
          user_id: s.user_id,
        },
        { 'x-idempotency-key': randomUUID() },
      );
      if (t?.transaction_id) {
        created.push(String(t.transaction_id));
        if (created.length > 2000) created.splice(0, 1000);
      }
    } else if (r < 0.55) await call('read', 'GET', `/transactions/${pick(created)}`);
    else if (r < 0.75) await call('list', 'GET', '/transactions?page_size=20');
    else if (r < 0.9) {
      const id = created.pop();
      if (!id) return;
      for (const ps of ['processing', 'completed'])
        if (
          !(await call('checkout', 'POST', `/sandbox/transactions/${id}/simulate`, { provider_status: ps }))
        )
          return;
      completed.push(id);
      if (completed.length > 2000) completed.splice(0, 1000);
    } else if (r < 0.95) {
      const id = completed.shift();
      if (id)
        await call(
          'refund',
          'POST',
          `/transactions/${id}/refunds`,
          { reason: 'soak' },
          { 'x-idempotency-key': randomUUID() },
        );
    } else {
      try {
        const res = await fetch(`${target.url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_email: s.email, password: s.password }),
        });
        await res.arrayBuffer();
        counts.login = (counts.login ?? 0) + 1;
        if (res.status !== 200) failures[`login ${res.status}`] = (failures[`login ${res.status}`] ?? 0) + 1;
      } catch (err) {
        failures[`login ${String(err).slice(0, 60)}`] =
          (failures[`login ${String(err).slice(0, 60)}`] ?? 0) + 1;
      }
    }
  };

  const start = Date.now();
  const end = start + MINUTES * 60_000;
  const inflight = new Set<Promise<void>>();
  const pacer = setInterval(() => {
    if (inflight.size > RATE * 5) return; // the service fell behind: do not pile up
    const p = operation().finally(() => inflight.delete(p));
    inflight.add(p);
  }, 1000 / RATE);

  const samples: Sample[] = [];
  const sample = async () => {
    const texts = await Promise.all(
      target.nodeUrls.map(async (u) => {
        try {
          return await (await fetch(`${u}/metrics`)).text();
        } catch {
          return '';
        }
      }),
    );
    const one = async (q: string) => (db ? Number((await db.query(q)).rows[0]?.n ?? 0) : null);
    const metricsText = texts[0] ?? '';
    samples.push({
      t: (Date.now() - start) / 60_000,
      rssMb: texts.map((x) => (metric(x, 'process_resident_memory_bytes') ?? 0) / 1048576),
      heapMb: texts.map((x) => (metric(x, 'nodejs_heap_size_used_bytes') ?? 0) / 1048576),
      lagP99Ms: texts.map((x) => (metric(x, 'nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000),
      connections: await one(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      ),
      jobsBacklog: await one(
        "select count(*)::int as n from jobs where status = 'pending' and run_at < now() - interval '1 minute'",
      ),
      deliveriesDue: metric(metricsText, 'webhook_deliveries_due'),
      idempotencyRows: await one('select count(*)::int as n from payment_idempotency_keys'),
    });
  };
  await sample();
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, end - Date.now())));
    await sample();
    const last = samples.at(-1)!;
    process.stderr.write(
      `${last.t.toFixed(1)} min: rss ${last.rssMb.map((x) => x.toFixed(0)).join('/')} MB, heap ${last.heapMb.map((x) => x.toFixed(0)).join('/')} MB, lag p99 ${last.lagP99Ms.map((x) => x.toFixed(0)).join('/')} ms, connections ${last.connections ?? '-'}, backlog ${last.jobsBacklog ?? '-'}\n`,
    );
  }
  clearInterval(pacer);
  await Promise.all(inflight);

  // The report: per node, the slope of each series after the warm-up, and the verdict.
  const after = samples.filter((x) => x.t >= WARMUP_MIN);
  const xs = after.map((x) => x.t);
  const lines = [
    `## Soak: ${ENGINE}, ${MINUTES} min at ${RATE} req/s (${new Date().toISOString()}, ${os.cpus().length} cores)`,
    '',
    `Requests: ${Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; failures: ${
      Object.entries(failures)
        .map(([k, v]) => `${k} × ${v}`)
        .join(', ') || 'none'
    }`,
    ...Object.entries(firstBodies).map(([k, v]) => `- first ${k}: ${v}`),
    '',
    '| Node | RSS at warm-up end (MB) | RSS at end (MB) | growth | RSS slope (MB/10 min) | peak RSS (MB) | heap slope (MB/10 min) | event-loop p99 max (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (let i = 0; i < target.nodeUrls.length; i++) {
    const rss = after.map((x) => x.rssMb[i] ?? 0);
    const heap = after.map((x) => x.heapMb[i] ?? 0);
    const first = rss[0] ?? 0;
    const lastRss = rss.at(-1) ?? 0;
    const peak = Math.max(...samples.map((x) => x.rssMb[i] ?? 0));
    lines.push(
      `| n${i + 1} | ${first.toFixed(0)} | ${lastRss.toFixed(0)} | ${first ? (((lastRss - first) / first) * 100).toFixed(1) : '-'}% | ${(slope(xs, rss) * 10).toFixed(2)} | ${peak.toFixed(0)} | ${(slope(xs, heap) * 10).toFixed(2)} | ${Math.max(...after.map((x) => x.lagP99Ms[i] ?? 0)).toFixed(0)} |`,
    );
  }
  if (db) {
    const series = (f: (x: Sample) => number | null) => after.map((x) => f(x) ?? 0);
    lines.push(
      '',
      `Database connections: ${Math.min(...series((x) => x.connections))}–${Math.max(...series((x) => x.connections))} (slope ${(
        slope(
          xs,
          series((x) => x.connections),
        ) * 10
      ).toFixed(2)} per 10 min); ` +
        `overdue jobs: max ${Math.max(...series((x) => x.jobsBacklog))}; webhook deliveries due: max ${Math.max(...series((x) => x.deliveriesDue))}; ` +
        `idempotency keys: ${(
          slope(
            xs,
            series((x) => x.idempotencyRows),
          ) * 10
        ).toFixed(0)} rows per 10 min (kept 24 h, then purged)`,
    );
  }
  console.log(lines.join('\n'));
} finally {
  await db?.end();
  receiver.close();
  await target.stop();
}
