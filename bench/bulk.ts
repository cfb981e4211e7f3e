/**
 * Bulk payment-link benchmark (part of `npm run bench`, alone: `npm run bench:bulk`): starts the
 * service with its workers on a fresh database (PostgreSQL when DATABASE_URL names a server, else a
 * temp PGlite), posts 500-row jobs and measures the time from POST to `completed`, as rows per second.
 * Options (env): BENCH_BULK_JOBS (default 3), BENCH_BULK_ROWS (default 500).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { benchService, openBenchDatabase, ownerToken, seed, waitReady } from './api';
import { startService } from './report';

const JOBS = Number(process.env.BENCH_BULK_JOBS ?? 3);
const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 500);

export interface BulkBenchResult {
  engine: string;
  rows: number;
  seconds: number[];
}

export async function runBulkBench(): Promise<BulkBenchResult> {
  const { base, jwtSecret, env } = await benchService({ SVC_WORKER_POLL_MS: '50' });
  const adminUrl = process.env.DATABASE_URL;
  const { database, cleanup } = await openBenchDatabase(env, 'svc_bench_bulk');
  await database.migrate();
  const s = await seed(database, 0);
  await database.close();
  const child = startService(env);
  const seconds: number[] = [];
  try {
    await waitReady(base, child);
    const token = await ownerToken(jwtSecret, s);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (let j = 0; j < JOBS; j++) {
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        amount: `${(i % 200) + 1}.50`,
        user_id: s.userId,
        reference: `bench-${j}-${i}`,
        'metadata.line': String(i),
      }));
      const t0 = performance.now();
      const res = await fetch(`${base}/api/v1/checkout/paylink/bulk`, {
        method: 'POST',
        headers: { ...headers, 'x-idempotency-key': `bench-bulk-${j}-${randomBytes(4).toString('hex')}` },
        body: JSON.stringify({ rows, defaults: { project_id: s.projectId, currency: 'EUR' } }),
      });
      if (res.status !== 202) throw new Error(`bulk create ${res.status}: ${await res.text()}`);
      const { bulk_id } = (await res.json()) as { bulk_id: string };
      for (;;) {
        const job = (await (
          await fetch(`${base}/api/v1/checkout/paylink/bulk/${bulk_id}`, { headers })
        ).json()) as {
          status: string;
          counts: { created: number };
        };
        if (job.status === 'completed' || job.status === 'completed_with_errors') {
          if (job.counts.created !== ROWS) throw new Error(`only ${job.counts.created} created`);
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      const secs = (performance.now() - t0) / 1000;
      seconds.push(secs);
      console.log(`job ${j + 1}: ${ROWS} rows in ${secs.toFixed(2)} s (${(ROWS / secs).toFixed(0)} rows/s)`);
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await cleanup();
  }
  return { engine: adminUrl ? 'postgres' : 'pglite', rows: ROWS, seconds };
}

export function formatBulkBench(r: BulkBenchResult): string {
  const best = Math.min(...r.seconds);
  const worst = Math.max(...r.seconds);
  return (
    `| ${r.engine} | ${r.rows} | ${r.seconds.length} | ${best.toFixed(2)} | ${worst.toFixed(2)} | ` +
    `${(r.rows / worst).toFixed(0)}-${(r.rows / best).toFixed(0)} |`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runBulkBench()
    .then((r) => {
      console.log('\n| Engine | Rows per job | Jobs | Best (s) | Worst (s) | rows/s |');
      console.log('|---|---:|---:|---:|---:|---:|');
      console.log(formatBulkBench(r));
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
