/**
 * Shared pieces of the API bench: running one autocannon scenario (warm-up, then measured),
 * starting the floor routes (bench/floor-server.ts) in a child process, the service's peak RSS,
 * and the table with ratios to the floor rows.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { startScriptFlags } from './service-process';

export interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export function autocannonRun(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export async function measure(
  name: string,
  o: autocannon.Options,
  connections: number,
  duration: number,
): Promise<Measured> {
  await autocannonRun({ ...o, connections: 2, duration: 2 }); // warm-up, discarded
  const r = await autocannonRun({ ...o, connections, duration });
  const m = {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
  console.log(`${name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, non-2xx ${m.non2xx}`);
  return m;
}

/** Peak resident set (VmHWM) of a process, in MB (Linux); null elsewhere. */
export function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

export async function waitHttp(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become ready`);
}

export function startNode(script: string, env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

export { startScriptFlags } from './service-process';

/**
 * The service as it runs in production: compiled (`npm run build`, only when src/ changed since the
 * last build) and started as `node <the start script's flags> dist/server.js`, not through tsx
 * (which transpiles in process and adds about 100 MB of resident memory).
 */
export function startService(env: Record<string, string | undefined>): ChildProcess {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  // BENCH_SERVICE_NODE_OPTIONS: V8 flags for the service only (e.g. heap limits), not the bench or the build.
  const nodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS;
  return spawn(process.execPath, [...startScriptFlags(), 'dist/server.js'], {
    env: nodeOptions ? { ...env, NODE_OPTIONS: nodeOptions } : env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

export interface Row extends Measured {
  floor?: Measured;
  /** p99 compared with this row's p99 instead of the floor's (list at 1M vs at 10k). */
  p99Base?: Measured;
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

export function printTable(floors: Measured[], rows: Row[]): void {
  console.log('\n| Scenario | req/s | p50 (ms) | p99 (ms) | non-2xx | floor | req/s ratio | p99 ratio |');
  console.log('|---|---:|---:|---:|---:|---|---:|---:|');
  for (const f of floors)
    console.log(`| floor: ${f.name} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${f.non2xx} | – | 1 | 1 |`);
  for (const r of rows) {
    const ratio = r.floor ? `${(r.rps / r.floor.rps).toFixed(2)}x` : '–';
    const base = r.p99Base ?? r.floor;
    const p99 = base
      ? `${fmt(r.p99 / Math.max(base.p99, 1))}x${r.p99Base ? ` (vs ${r.p99Base.name})` : ''}`
      : '–';
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.floor?.name ?? '–'} | ${ratio} | ${p99} |`,
    );
  }
}
