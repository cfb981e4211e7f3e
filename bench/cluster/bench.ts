/**
 * `npm run bench:cluster`: the cluster harness under the same traffic in one run (only ratios taken
 * in one run hold on a shared machine): one node against three nodes on the same cores, three
 * nodes through PgBouncer in transaction mode, and one node with its hot statements unnamed (what
 * the pooler setting costs). Each configuration gets the same mix (half payment-link creations
 * with a fresh idempotency key, half list reads) twice: at a fixed offered rate (does coordination
 * add latency?) and unthrottled with 16 connections (capacity).
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { autocannonRun } from '../report';
import { type ClusterOptions, clusterClient, startCluster } from './harness';

interface Row {
  config: string;
  mode: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const RATE = Number(process.env.BENCH_CLUSTER_RATE ?? 120);
const DURATION = Number(process.env.BENCH_CLUSTER_SECONDS ?? 10);

async function runConfig(config: string, opts: ClusterOptions): Promise<Row[]> {
  const cluster = await startCluster({ ...opts, env: { LOG_LEVEL: 'error', ...opts.env } });
  try {
    const api = await clusterClient(cluster);
    const body = JSON.stringify({
      amount: '10.00',
      currency: 'EUR',
      project_id: api.projectId,
      user_id: api.userId,
    });
    const requests: autocannon.Request[] = [
      {
        method: 'POST',
        path: '/api/v1/checkout/paylink',
        setupRequest: (req) => ({
          ...req,
          headers: { ...api.headers, 'x-idempotency-key': randomUUID() },
          body,
        }),
      },
      { method: 'GET', path: '/api/v1/transactions?page_size=20', headers: api.headers },
    ];
    const base = { url: cluster.url, requests };
    await autocannonRun({ ...base, connections: 4, duration: 3 }); // warm-up, discarded
    const rows: Row[] = [];
    for (const [mode, o] of [
      [`${RATE} req/s offered`, { connections: 8, overallRate: RATE }],
      ['unthrottled, 16 connections', { connections: 16 }],
    ] as const) {
      const r = await autocannonRun({ ...base, ...o, duration: DURATION });
      rows.push({
        config,
        mode,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    }
    return rows;
  } finally {
    await cluster.stop();
  }
}

export async function runClusterBench(): Promise<Row[]> {
  const rows: Row[] = [];
  rows.push(...(await runConfig('1 node', { nodes: 1 })));
  rows.push(...(await runConfig('3 nodes', { nodes: 3 })));
  rows.push(...(await runConfig('3 nodes via PgBouncer (transaction mode)', { nodes: 3, pgbouncer: true })));
  rows.push(
    ...(await runConfig('1 node, unnamed statements', {
      nodes: 1,
      env: { DATABASE_PREPARED_STATEMENTS: 'false' },
    })),
  );
  return rows;
}

export function formatClusterBench(rows: Row[]): string {
  const lines = [
    '| Configuration | Load | req/s | p50 (ms) | p99 (ms) | non-2xx | errors | req/s vs 1 node |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const one = rows.find((x) => x.config === '1 node' && x.mode === r.mode);
    lines.push(
      `| ${r.config} | ${r.mode} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${one ? (r.rps / one.rps).toFixed(2) : '-'} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`## Cluster (${new Date().toISOString()})\n`);
  console.log(formatClusterBench(await runClusterBench()));
}
