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
 *
 * Every failure is kept with its time (the report counts them per minute, beside the load average of
 * the machine at each sample); through the balancer each sample also reads HAProxy's check counters
 * (failed checks, times a node went down), so a 503 of the balancer is told from the service's.
 * On PGlite the service runs with bench/memory-probe.mjs: each sample adds the size of PGlite's
 * WebAssembly memory (its linear memory, which only grows) beside RSS, and `--heap-snapshots <dir>`
 * writes V8 heap snapshots at `--snapshot-minutes` (default 4.5: before the warm-up ends, since
 * writing one grows RSS by about its size) and after the last sample, compared by bench/heap-diff.ts.
 * `--out <file>` writes every sample, failure and the report as JSON.
 *
 * Every node starts with the Node.js options of package.json's `start` script (the heap limits), as
 * production starts it; `--node-args "<options>"` replaces them, for comparison runs of other V8
 * settings (docs/performance.md, "Soak, 2026-11-30"). Each request's time is kept: the report gives
 * its p99 beside the event loop's.
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
import { type Cluster, startCluster } from './cluster/harness';
import { diffSnapshots } from './heap-diff';
import { freePort, startScriptFlags, waitReady } from './service-process';

const { values } = parseArgs({
  options: {
    engine: { type: 'string', default: 'postgres' },
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '20' },
    'sample-seconds': { type: 'string', default: '10' },
    'warmup-minutes': { type: 'string', default: '5' },
    out: { type: 'string' },
    'heap-snapshots': { type: 'string' },
    'snapshot-minutes': { type: 'string', default: '4.5' },
    'node-args': { type: 'string' },
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
const SNAPSHOT_DIR = values['heap-snapshots'] ? path.resolve(values['heap-snapshots']) : null;
const SNAPSHOT_MIN = Number(values['snapshot-minutes']);
if (SNAPSHOT_DIR && ENGINE !== 'pglite') throw new Error('--heap-snapshots is for --engine pglite');
const NODE_ARGS =
  values['node-args'] !== undefined ? values['node-args'].split(/\s+/).filter(Boolean) : startScriptFlags();

interface Target {
  url: string;
  nodeUrls: string[];
  dataDir: string;
  databaseUrl: string | null;
  cluster: Cluster | null;
  /** The PGlite service's probe (bench/memory-probe.mjs): a message, its answer. */
  ask: (<T>(msg: Record<string, unknown>) => Promise<T>) | null;
  stop(): Promise<void>;
}

async function startPglite(): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-soak-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', './bench/memory-probe.mjs', ...NODE_ARGS, 'dist/server.js'],
    {
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
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  let seq = 0;
  const ask = <T>(msg: Record<string, unknown>): Promise<T> =>
    new Promise((resolve) => {
      const id = ++seq;
      const on = (m: { id?: number }) => {
        if (m?.id !== id) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
      child.send({ ...msg, id });
    });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, { timeoutMs: 90_000, pollMs: 100 });
  return {
    url,
    nodeUrls: [url],
    dataDir,
    databaseUrl: null,
    cluster: null,
    ask,
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
  const c = await startCluster({
    nodes: ENGINE === 'cluster' ? 3 : 1,
    env: { LOG_LEVEL: 'error' },
    nodeArgs: NODE_ARGS,
  });
  return {
    url: c.url,
    nodeUrls: c.nodes.map((n) => n.url),
    dataDir: c.dataDir,
    databaseUrl: c.databaseUrl,
    cluster: c,
    ask: null,
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
  /** p99 of the requests answered since the previous sample (ms; through the balancer on PostgreSQL). */
  reqP99Ms: number | null;
  /** 1-minute load average of the machine. */
  load1: number;
  /** PGlite: its WebAssembly memory, and V8's external memory (which counts it), in MB. */
  wasmMb: number | null;
  externalMb: number | null;
  /** Through the balancer, per node: HAProxy's failed checks and down transitions so far, and its state. */
  checkFails: number[];
  checkDowns: number[];
  balancerState: string[];
  /** HAProxy's last check of each node: its status (L7OK, L4TOUT, ...) and duration (ms). */
  lastCheck: string[];
}

/** The q-quantile of the values (nearest rank), or null without any. */
function quantile(values: number[], q: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
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
  /** Every failure with its time (minutes since the traffic started), the first 5000. */
  const failureLog: { t: number; kind: string }[] = [];
  let start = Date.now();
  /** Each answered request: when (minutes since the traffic started) and how long it took (ms). */
  const timings: { t: number; ms: number }[] = [];
  const timed = async (f: () => Promise<Response>): Promise<Response> => {
    const t0 = performance.now();
    const res = await f();
    const text = await res.text();
    timings.push({ t: (Date.now() - start) / 60_000, ms: performance.now() - t0 });
    return new Response(text, { status: res.status });
  };
  const fail = (k: string) => {
    failures[k] = (failures[k] ?? 0) + 1;
    if (failureLog.length < 5000) failureLog.push({ t: (Date.now() - start) / 60_000, kind: k });
  };
  const call = async (
    op: string,
    method: string,
    url: string,
    body?: unknown,
    extra: Record<string, string> = {},
  ) => {
    try {
      const res = await timed(() =>
        fetch(`${target.url}/api/v1${url}`, {
          method,
          headers: { ...headers, ...extra },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      const text = await res.text();
      counts[op] = (counts[op] ?? 0) + 1;
      if (res.status >= 400 && !(op === 'refund' && res.status < 500)) {
        const k = `${op} ${res.status}`;
        fail(k);
        // The first answer of each kind of failure, to tell the balancer's 503 from the service's.
        firstBodies[k] ??= text.replace(/\s+/g, ' ').slice(0, 160);
        return null;
      }
      return text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch (err) {
      fail(`${op} ${String(err).slice(0, 60)}`);
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
        const res = await timed(() =>
          fetch(`${target.url}/api/v1/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ client_email: s.email, password: s.password }),
          }),
        );
        const text = await res.text();
        counts.login = (counts.login ?? 0) + 1;
        if (res.status !== 200) {
          fail(`login ${res.status}`);
          firstBodies[`login ${res.status}`] ??= text.replace(/\s+/g, ' ').slice(0, 160);
        }
      } catch (err) {
        fail(`login ${String(err).slice(0, 60)}`);
      }
    }
  };

  start = Date.now();
  const end = start + MINUTES * 60_000;
  const inflight = new Set<Promise<void>>();
  const pacer = setInterval(() => {
    if (inflight.size > RATE * 5) return; // the service fell behind: do not pile up
    const p = operation().finally(() => inflight.delete(p));
    inflight.add(p);
  }, 1000 / RATE);

  const samples: Sample[] = [];
  let timed0 = 0;
  const sample = async () => {
    const answered = timings.slice(timed0).map((x) => x.ms);
    timed0 = timings.length;
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
    const probe = target.ask
      ? await target.ask<{ usage: NodeJS.MemoryUsage; wasm: number[] }>({ type: 'sample', gc: false })
      : null;
    const stats = target.cluster ? await target.cluster.balancerStats().catch(() => ({})) : {};
    const rows = target.cluster
      ? target.cluster.nodes.map((n) => (stats as Record<string, Record<string, string>>)[n.name])
      : [];
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
      reqP99Ms: quantile(answered, 0.99),
      load1: os.loadavg()[0] ?? 0,
      wasmMb: probe ? probe.wasm.reduce((a, b) => a + b, 0) / 1048576 : null,
      externalMb: probe ? probe.usage.external / 1048576 : null,
      checkFails: rows.map((r) => Number(r?.chkfail ?? 0)),
      checkDowns: rows.map((r) => Number(r?.chkdown ?? 0)),
      balancerState: rows.map((r) => r?.status ?? '?'),
      lastCheck: rows.map((r) => `${r?.check_status ?? '?'} ${r?.check_duration ?? '?'} ms`),
    });
  };
  const snapshots: string[] = [];
  const snapshot = async (name: string) => {
    if (!SNAPSHOT_DIR || !target.ask) return;
    fs.mkdirSync(SNAPSHOT_DIR, { recursive: true });
    const t0 = Date.now();
    const r = await target.ask<{ file: string }>({
      type: 'snapshot',
      file: path.join(SNAPSHOT_DIR, `soak-${name}.heapsnapshot`),
    });
    snapshots.push(r.file);
    process.stderr.write(`heap snapshot ${r.file} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  };
  let snapshotted = !SNAPSHOT_DIR;
  await sample();
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, end - Date.now())));
    await sample();
    const last = samples.at(-1)!;
    const recent = failureLog.filter((f) => f.t > last.t - SAMPLE_MS / 60_000).length;
    process.stderr.write(
      `${last.t.toFixed(1)} min: rss ${last.rssMb.map((x) => x.toFixed(0)).join('/')} MB, heap ${last.heapMb.map((x) => x.toFixed(0)).join('/')} MB, ` +
        `${last.wasmMb !== null ? `wasm ${last.wasmMb.toFixed(0)} MB, external ${last.externalMb?.toFixed(0)} MB, ` : ''}` +
        `lag p99 ${last.lagP99Ms.map((x) => x.toFixed(0)).join('/')} ms, request p99 ${last.reqP99Ms?.toFixed(0) ?? '-'} ms, connections ${last.connections ?? '-'}, backlog ${last.jobsBacklog ?? '-'}, ` +
        `${last.checkFails.length ? `checks failed ${last.checkFails.join('/')} down ${last.checkDowns.join('/')} (${last.balancerState.join('/')}; last ${last.lastCheck.join('/')}), ` : ''}` +
        `load ${last.load1.toFixed(2)}, failures ${recent}\n`,
    );
    if (!snapshotted && last.t >= SNAPSHOT_MIN) {
      snapshotted = true;
      await snapshot('early');
    }
  }
  clearInterval(pacer);
  await Promise.all(inflight);
  if (SNAPSHOT_DIR) await snapshot('end');

  // The report: per node, the slope of each series after the warm-up, and the verdict.
  const after = samples.filter((x) => x.t >= WARMUP_MIN);
  const xs = after.map((x) => x.t);
  const ms = (v: number | null) => (v === null ? '-' : `${v.toFixed(0)} ms`);
  const afterTimes = timings.filter((x) => x.t >= WARMUP_MIN).map((x) => x.ms);
  const lines = [
    `## Soak: ${ENGINE}, ${MINUTES} min at ${RATE} req/s (${new Date().toISOString()}, ${os.cpus().length} cores)`,
    '',
    `Node.js options of the service: ${NODE_ARGS.join(' ') || '(none)'}`,
    `Request time (all requests, whole run): p50 ${ms(
      quantile(
        timings.map((x) => x.ms),
        0.5,
      ),
    )}, p99 ${ms(
      quantile(
        timings.map((x) => x.ms),
        0.99,
      ),
    )}; after the warm-up: p50 ${ms(quantile(afterTimes, 0.5))}, p99 ${ms(quantile(afterTimes, 0.99))}`,
    `Requests: ${Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; failures: ${
      Object.entries(failures)
        .map(([k, v]) => `${k} × ${v}`)
        .join(', ') || 'none'
    }`,
    ...Object.entries(firstBodies).map(([k, v]) => `- first ${k}: ${v}`),
    ...(failureLog.length
      ? [
          `Failures per minute of the run (minute: count): ${Object.entries(
            failureLog.reduce<Record<number, number>>((m, f) => {
              m[Math.floor(f.t)] = (m[Math.floor(f.t)] ?? 0) + 1;
              return m;
            }, {}),
          )
            .map(([k, v]) => `${k}: ${v}`)
            .join(', ')}`,
        ]
      : []),
    `Load average (1 min) over the samples: ${Math.min(...samples.map((x) => x.load1)).toFixed(1)}–${Math.max(...samples.map((x) => x.load1)).toFixed(1)}`,
    ...(samples.at(-1)?.checkFails.length
      ? [
          `Balancer: failed checks ${samples.at(-1)!.checkFails.join('/')}, down transitions ${samples.at(-1)!.checkDowns.join('/')} (per node, whole run)`,
        ]
      : []),
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
  const wasm = samples.filter((x) => x.wasmMb !== null);
  if (wasm.length) {
    const w = after.map((x) => x.wasmMb ?? 0);
    lines.push(
      '',
      `PGlite WebAssembly memory: ${wasm[0]!.wasmMb!.toFixed(0)} MB at start, ${(w[0] ?? 0).toFixed(0)} MB at warm-up end, ${(w.at(-1) ?? 0).toFixed(0)} MB at end ` +
        `(slope ${(slope(xs, w) * 10).toFixed(2)} MB/10 min; first reached its final size at minute ${wasm.find((x) => x.wasmMb === wasm.at(-1)!.wasmMb)!.t.toFixed(1)}); ` +
        `RSS minus it at warm-up end ${((after[0]?.rssMb[0] ?? 0) - (w[0] ?? 0)).toFixed(0)} MB, at end ${((after.at(-1)?.rssMb[0] ?? 0) - (w.at(-1) ?? 0)).toFixed(0)} MB`,
    );
  }
  if (snapshots.length === 2) {
    try {
      const d = diffSnapshots(snapshots[0]!, snapshots[1]!, 20);
      const mb = (n: number) => (n / 1048576).toFixed(1);
      lines.push(
        '',
        `Heap snapshots (minute ${SNAPSHOT_MIN} and end): ${mb(d.totalBefore)} -> ${mb(d.totalAfter)} MB live; largest changes:`,
        ...d.top.map(
          (r) =>
            `  ${(r.sizeDelta / 1024).toFixed(1).padStart(9)} KB ${String(r.countDelta).padStart(7)} objects  ${r.key}`,
        ),
      );
    } catch (err) {
      lines.push(
        '',
        `Heap snapshots written (${snapshots.join(', ')}); comparing them failed: ${String(err)}`,
      );
    }
  }
  console.log(lines.join('\n'));
  if (values.out)
    fs.writeFileSync(
      values.out,
      JSON.stringify(
        {
          engine: ENGINE,
          nodeArgs: NODE_ARGS,
          minutes: MINUTES,
          rate: RATE,
          counts,
          failures,
          firstBodies,
          failureLog,
          samples,
          snapshots,
          report: lines,
        },
        null,
        1,
      ),
    );
} finally {
  await db?.end();
  receiver.close();
  await target.stop();
}
