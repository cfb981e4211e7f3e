/**
 * CPU profile of the built service under one API scenario (`npm run bench:profile`): seeds a fresh
 * database like the API bench, starts `node --cpu-prof dist/server.js`, drives the scenario with
 * autocannon, stops the service and prints where its main thread spent the time (self time by
 * function, then by package). The .cpuprofile stays in BENCH_PROFILE_DIR (default a temp dir) for
 * a flame graph (Chrome DevTools, speedscope).
 * Env: BENCH_SCENARIO create | read | list | list-status | login (default create; list is the first
 * page of GET /transactions, list-status its status=success&page_size=50 filter, login POST /auth/login
 * over the bench's login accounts: argon2 runs off the main thread, so the profile shows the rest),
 * BENCH_DURATION (s, default 15),
 * BENCH_CONNECTIONS (default 10), DATABASE_URL (PostgreSQL; else PGlite).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchService, openBenchDatabase, ownerToken, seed, waitReady } from './api';
import { LOGIN_PASSWORD, seedLoginAccounts } from './login';
import { autocannonRun, stopChild } from './report';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/**
 * Self time per function and per package (node_modules/<pkg>, the service's own code, node
 * internals), counting only samples taken `skipMs` or more after the profile started (start-up:
 * module loading and the schema compilers would otherwise dilute the shares of the scenario).
 */
export function summarizeProfile(file: string, top = 25, skipMs = 0): string {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let at = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i] ?? 0;
    at += dt;
    if (at >= skipMs * 1000) self.set(id, (self.get(id) ?? 0) + dt);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    const where = m
      ? m[1]!
      : url.includes('/dist/')
        ? 'service (dist)'
        : url
          ? 'node internals'
          : functionName;
    pkg.set(where, (pkg.get(where) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const lines = [`total ${(total / 1e6).toFixed(1)} s of samples`, '', 'by package (self time):'];
  for (const [k, us] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, 15)) lines.push(`${pct(us)}  ${k}`);
  lines.push('', 'by function (self time):');
  for (const [k, us] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${k}`);
  return lines.join('\n');
}

async function main() {
  const scenario = process.env.BENCH_SCENARIO ?? 'create';
  const duration = Number(process.env.BENCH_DURATION ?? 15);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const dir = process.env.BENCH_PROFILE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-profile-'));
  const { base, jwtSecret, env } = await benchService();
  const { database, cleanup } = await openBenchDatabase(env, 'svc_profile');
  await database.migrate();
  const s = await seed(database, 10_000);
  const loginEmails = await seedLoginAccounts(database, s.clientId);
  await database.close();
  let loadFrom = 0;
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, 'dist/server.js'], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitReady(base, child);
    const token = await ownerToken(jwtSecret, s);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let seq = 0;
    loadFrom = Date.now() - spawnedAt;
    const lists: Record<string, string> = {
      read: `/transactions/${s.sampleTransactionId}`,
      list: '/transactions',
      'list-status': '/transactions?status=success&page_size=50',
    };
    const getPath = lists[scenario];
    const r = await autocannonRun(
      getPath
        ? { url: `${base}/api/v1${getPath}`, headers, connections, duration }
        : scenario === 'login'
          ? {
              url: `${base}/api/v1/auth/login`,
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              requests: [
                {
                  setupRequest: (req) => ({
                    ...req,
                    body: JSON.stringify({
                      client_email: loginEmails[seq++ % loginEmails.length],
                      password: LOGIN_PASSWORD,
                    }),
                  }),
                },
              ],
              connections,
              duration,
            }
          : {
              url: `${base}/api/v1/checkout/paylink`,
              method: 'POST',
              headers,
              body: JSON.stringify({
                amount: '49.90',
                currency: 'EUR',
                project_id: s.projectId,
                user_id: s.userId,
              }),
              requests: [
                {
                  setupRequest: (req) => ({
                    ...req,
                    headers: { ...req.headers, 'x-idempotency-key': `profile-${++seq}` },
                  }),
                },
              ],
              connections,
              duration,
            },
    );
    console.log(`${scenario}: ${r.requests.average} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
  } finally {
    await stopChild(child);
    await cleanup();
  }
  const file = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (!file) throw new Error('no profile written');
  console.log(`profile: ${file}\n`);
  console.log(`(samples from ${loadFrom} ms after start, when the load began)`);
  console.log(summarizeProfile(file, 25, loadFrom));
}

// Only when run as a script: importing summarizeProfile must not start a bench.
if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
