/**
 * Memory of the built service under the same merchant script, round after round (`npm run
 * bench:memory`): growth or a one-off? Starts `node --expose-gc --import bench/memory-probe.mjs
 * <npm start's flags> dist/server.js` on a fresh database (a temp PGlite directory, or a new database
 * on the server of DATABASE_URL) with a local webhook receiver, then runs BENCH_MEMORY_ROUNDS rounds
 * (default 30) of what one merchant's dashboard and backend do in about a minute: create payment
 * links and walk them to an outcome in the sandbox (webhooks delivered), poll a payment's detail,
 * timeline and deliveries like the dashboard's payment page, list payments (filters, pages),
 * notifications, deliveries and the activity log, open a checkout page and the dashboard, upload a
 * CSV of 10 payment links and confirm it, download its results, the activity export and an invoice
 * PDF, sign in once (argon2) and refresh the session. After each round, once the webhooks are delivered, the
 * probe forces a full GC and reports resident memory (RSS), the V8 heap used, external and array
 * buffers (V8 counts PGlite's WebAssembly memory as external) and that WebAssembly memory, each
 * separately; growth per round is counted after BENCH_MEMORY_WARM_ROUNDS (default 5). Then
 * BENCH_MEMORY_IDLE_SECONDS (default 60) with the dashboard left open on a payment (its polls only),
 * sampled every minute. Last, two heap snapshots
 * around BENCH_MEMORY_SNAPSHOT_ROUNDS (default 10) more rounds are compared by constructor
 * (bench/heap-diff.ts; 0 skips them). Prints a table and the growth per round; the snapshots stay
 * in BENCH_PROFILE_DIR (default a temp dir).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { benchService, openBenchDatabase, ownerToken, seed, waitReady } from './api';
import { diffSnapshots } from './heap-diff';
import { LOGIN_PASSWORD, seedLoginAccounts } from './login';
import { startScriptFlags, stopChild } from './report';

const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 30);
/** Rounds of warm-up (JIT, caches, first allocations) before growth is counted. */
const WARM = Number(process.env.BENCH_MEMORY_WARM_ROUNDS ?? 5);
const SNAPSHOT_ROUNDS = Number(process.env.BENCH_MEMORY_SNAPSHOT_ROUNDS ?? 10);
const IDLE_SECONDS = Number(process.env.BENCH_MEMORY_IDLE_SECONDS ?? 60);
const OUTCOMES = ['success', 'failed', 'insufficient_funds', 'canceled', 'expired'];
const MB = 1024 * 1024;

interface Sample {
  label: string;
  /** Resident memory as found, before the probe's GC (what `ps` shows), and its high-water mark. */
  rssLive: number;
  hwm: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  wasm: number;
}

/** The service with the probe and an IPC channel; answers to the probe's messages by id. */
function startProbedService(env: Record<string, string>) {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', './bench/memory-probe.mjs', ...startScriptFlags(), 'dist/server.js'],
    { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
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
  return { child, ask };
}

/** VmRSS and VmHWM of a process, in bytes (Linux). */
function procMemory(pid: number | undefined): { rss: number; hwm: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

async function sample(
  ask: ReturnType<typeof startProbedService>['ask'],
  pid: number | undefined,
  label: string,
): Promise<Sample> {
  const live = procMemory(pid);
  const r = await ask<{ usage: NodeJS.MemoryUsage; wasm: number[] }>({ type: 'sample' });
  return {
    label,
    rssLive: live.rss,
    hwm: live.hwm,
    rss: r.usage.rss,
    heapUsed: r.usage.heapUsed,
    heapTotal: r.usage.heapTotal,
    external: r.usage.external,
    arrayBuffers: r.usage.arrayBuffers,
    wasm: r.wasm.reduce((a, b) => a + b, 0),
  };
}

function receiver(): Promise<{ url: string; received: () => number; close: () => void }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/hook`, received: () => count, close: () => server.close() });
    });
  });
}

/** One merchant-minute of requests against the API, the checkout and the dashboard. */
async function merchantRound(base: string, auth: Record<string, string>, world: Seeded, round: number) {
  const api = async (method: string, p: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(`${base}/api/v1${p}`, {
      method,
      headers: { ...auth, ...extra, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as Record<string, any>) : {};
  };
  for (let i = 0; i < 6; i++) {
    const t = await api(
      'POST',
      '/checkout/paylink',
      {
        amount: `${10 + i}.${String(round % 100).padStart(2, '0')}`,
        currency: 'EUR',
        project_id: world.projectId,
        user_id: world.userId,
        description: `Order ${round}-${i}`,
        metadata: { order_id: `${round}-${i}` },
      },
      { 'x-idempotency-key': `mem-${round}-${i}-${randomBytes(4).toString('hex')}` },
    );
    const id = t.transaction_id as string;
    const detail = () =>
      Promise.all([
        api('GET', `/transactions/${id}`),
        api('GET', `/transactions/${id}/status-events`),
        api('GET', `/webhooks/deliveries?transaction_id=${id}`),
      ]);
    await detail();
    await fetch(t.checkout_url as string).then((r) => r.text());
    await detail();
    await api('POST', `/sandbox/transactions/${id}/simulate`, {
      outcome: OUTCOMES[(round + i) % OUTCOMES.length],
    });
    await detail();
  }
  for (let i = 0; i < 12; i++) await api('GET', '/transactions');
  for (const status of ['success', 'failed', 'pending'])
    await api('GET', `/transactions?status=${status}&page_size=50`);
  await api('GET', '/transactions?page=2');
  await Promise.all([api('GET', '/notifications/counts'), api('GET', '/notifications?page_size=20')]);
  await Promise.all([api('GET', '/webhooks/deliveries?limit=20'), api('GET', '/activity-logs?page_size=25')]);
  await Promise.all([api('GET', '/auth/me'), api('GET', '/projects'), api('GET', '/kyc/lists')]);
  await fetch(`${base}/dashboard/payments`).then((r) => r.text());
  // Files, as the dashboard's bulk page and downloads do: a CSV of 10 links confirmed and run by the
  // service's worker, its results, the activity export, and an invoice PDF (pdf-lib).
  const csv = [
    'amount,currency,project_id,user_id,description,reference',
    ...Array.from(
      { length: 10 },
      (_, i) => `${i + 1}.50,EUR,${world.projectId},${world.userId},Bulk ${round},r${round}-${i}`,
    ),
  ].join('\n');
  const job = await api(
    'POST',
    '/checkout/paylink/bulk',
    { preview: true, file: { file_name: 'links.csv', content_base64: Buffer.from(csv).toString('base64') } },
    { 'x-idempotency-key': `mem-bulk-${round}-${randomBytes(4).toString('hex')}` },
  );
  await api('POST', `/checkout/paylink/bulk/${job.bulk_id}/confirm`);
  for (
    let i = 0;
    i < 50 &&
    !String((await api('GET', `/checkout/paylink/bulk/${job.bulk_id}`)).status).startsWith('completed');
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
  await fetch(`${base}/api/v1/checkout/paylink/bulk/${job.bulk_id}/results.csv`, { headers: auth }).then(
    (r) => r.text(),
  );
  await fetch(`${base}/api/v1/activity-logs/export?format=csv`, { headers: auth }).then((r) => r.text());
  world.invoiceId ??= (await api('POST', '/sandbox/billing/invoices', {})).invoice_id as string;
  await fetch(`${base}/api/v1/billing/invoices/${world.invoiceId}/pdf`, { headers: auth }).then((r) =>
    r.arrayBuffer(),
  );
  // One sign-in (argon2 on the thread pool) and one refresh, as a returning dashboard user.
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_email: world.loginEmail, password: LOGIN_PASSWORD }),
  }).then((r) => r.json() as Promise<{ refresh_token?: string }>);
  if (login.refresh_token)
    await fetch(`${base}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: login.refresh_token }),
    }).then((r) => r.text());
}

interface Seeded {
  projectId: string;
  userId: string;
  loginEmail: string;
  invoiceId?: string;
}

async function deliveriesDrained(base: string, auth: Record<string, string>) {
  for (let i = 0; i < 100; i++) {
    const pending = await Promise.all(
      ['pending', 'retrying'].map((s) =>
        fetch(`${base}/api/v1/webhooks/deliveries?status=${s}&limit=1`, { headers: auth })
          .then((r) => r.json() as Promise<{ total: number }>)
          .then((b) => b.total),
      ),
    );
    if (pending.every((n) => n === 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const mb = (n: number) => (n / MB).toFixed(1).padStart(7);

function printTable(samples: Sample[]) {
  console.log(
    `\n${'sample'.padEnd(14)}rss-live   peak |    rss heapUsed heapTotal external arrayBuf   wasm  (MB; right of the bar: after a full GC)`,
  );
  for (const s of samples)
    console.log(
      `${s.label.padEnd(14)}${mb(s.rssLive)}${mb(s.hwm)} |${mb(s.rss)}${mb(s.heapUsed)}  ${mb(s.heapTotal)}${mb(s.external)}${mb(s.arrayBuffers)}${mb(s.wasm)}`,
    );
}

async function main() {
  const { base, jwtSecret, env } = await benchService();
  const engine = process.env.DATABASE_URL ? 'postgres' : 'pglite';
  const outDir = process.env.BENCH_PROFILE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-memory-'));
  const { database, cleanup } = await openBenchDatabase(env, 'svc_memory');
  await database.migrate();
  const s = await seed(database, Number(process.env.BENCH_TRANSACTIONS ?? 2000));
  const [loginEmail] = await seedLoginAccounts(database, s.clientId);
  await database.close();
  const hook = await receiver();
  const { child, ask } = startProbedService(env);
  const samples: Sample[] = [];
  const started = Date.now();
  try {
    await waitReady(base, child);
    const auth = { authorization: `Bearer ${await ownerToken(jwtSecret, s)}` };
    await fetch(`${base}/api/v1/auth/client/settings`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_url: hook.url, webhook_enabled: true }),
    });
    samples.push(await sample(ask, child.pid, 'ready'));
    const world: Seeded = { projectId: s.projectId, userId: s.userId, loginEmail: loginEmail! };
    const snap = (name: string) =>
      ask<{ file: string }>({ type: 'snapshot', file: path.join(outDir, `${name}.heapsnapshot`) }).then(
        (r) => r.file,
      );
    // Samples first: writing a heap snapshot grows the process's resident memory by about the
    // snapshot's size (serialization buffers the allocator keeps), so the snapshots come after.
    for (let round = 1; round <= ROUNDS; round++) {
      await merchantRound(base, auth, world, round);
      await deliveriesDrained(base, auth);
      samples.push(await sample(ask, child.pid, `round ${round}`));
    }
    // The dashboard left open on a payment: its polls (list every 5 s, the payment's detail, timeline
    // and deliveries every 2 s, the unread count every 30 s), sampled every minute.
    const open = (await fetch(`${base}/api/v1/transactions?page_size=1`, { headers: auth }).then((r) =>
      r.json(),
    )) as {
      transactions: { transaction_id: string }[];
    };
    const id = open.transactions[0]?.transaction_id;
    const get = (p: string) => fetch(`${base}/api/v1${p}`, { headers: auth }).then((r) => r.arrayBuffer());
    const polls = [
      setInterval(() => void get('/transactions'), 5000),
      setInterval(
        () =>
          void Promise.all([
            get(`/transactions/${id}`),
            get(`/transactions/${id}/status-events`),
            get(`/webhooks/deliveries?transaction_id=${id}`),
          ]),
        2000,
      ),
      setInterval(() => void get('/notifications/counts'), 30_000),
    ];
    for (let t = 60; t <= IDLE_SECONDS; t += 60) {
      await new Promise((r) => setTimeout(r, 60_000));
      samples.push(await sample(ask, child.pid, `open ${t / 60} min`));
    }
    for (const p of polls) clearInterval(p);
    printTable(samples);
    const at = samples.find((x) => x.label === `round ${WARM}`)!;
    const end = samples.find((x) => x.label === `round ${ROUNDS}`)!;
    const per = (k: keyof Omit<Sample, 'label'>) => ((end[k] - at[k]) / MB / (ROUNDS - WARM)).toFixed(2);
    console.log(
      `\n${engine}, ${os.cpus().length} cores, ${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s, ` +
        `${hook.received()} webhooks received. From round ${WARM} to ${ROUNDS}, per round: ` +
        `rss ${per('rss')} MB, heapUsed ${per('heapUsed')} MB, external ${per('external')} MB, wasm ${per('wasm')} MB`,
    );
    if (SNAPSHOT_ROUNDS > 0) {
      const first = await snap('before');
      for (let round = ROUNDS + 1; round <= ROUNDS + SNAPSHOT_ROUNDS; round++) {
        await merchantRound(base, auth, world, round);
        await deliveriesDrained(base, auth);
      }
      const last = await snap('after');
      const d = diffSnapshots(first, last);
      console.log(
        `heap snapshots before and after ${SNAPSHOT_ROUNDS} more rounds: ${mb(d.totalBefore)} -> ${mb(d.totalAfter)} MB; largest changes:`,
      );
      for (const r of d.top)
        console.log(
          `  ${(r.sizeDelta / 1024).toFixed(1).padStart(9)} KB ${String(r.countDelta).padStart(7)} objects  ${r.key}`,
        );
      console.log(`snapshots in ${outDir}`);
    }
  } finally {
    await stopChild(child as ChildProcess);
    hook.close();
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
