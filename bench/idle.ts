/**
 * What an idle node costs its database: every background worker of the service running, no request,
 * no data, for BENCH_IDLE_SECONDS (default 60) after a settling period. On PostgreSQL it reads
 * `xact_commit + xact_rollback` of the node's own database in pg_stat_database (the measure:
 * committed transactions a second); on PGlite, where nothing else shares the process, it counts the
 * statements the workers send.
 *
 *   npm run bench:idle                                  # PGlite
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:idle
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { assembleDeps } from '../src/compose';
import { loadConfig } from '../src/config';
import { openPglite, openPostgres } from '../src/db/client';
import { deriveSecrets } from '../src/shared/crypto';
import { createWorkers } from '../src/workers/index';
import { recordStatements } from '../test/helpers/statement-count';

export interface IdleResult {
  engine: 'pglite' | 'postgres';
  seconds: number;
  /** Statements the workers sent per second (BEGIN and COMMIT count). */
  statementsPerSecond: number;
  /** PostgreSQL only: transactions committed or rolled back per second (pg_stat_database). */
  transactionsPerSecond: number | null;
  workers: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pgTransactions(adminUrl: string, name: string): Promise<number> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    // The statistics collector publishes at most every 500 ms; a fresh snapshot per read.
    await c.query('select pg_stat_clear_snapshot()');
    const r = await c.query<{ n: string }>(
      'select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = $1',
      [name],
    );
    return Number(r.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

export async function runIdleBench(
  opts: { databaseUrl?: string | null; seconds?: number } = {},
): Promise<IdleResult> {
  const seconds = opts.seconds ?? Number(process.env.BENCH_IDLE_SECONDS ?? 60);
  const adminUrl = opts.databaseUrl ?? null;
  const name = `svc_idle_${randomBytes(4).toString('hex')}`;
  let url: string | null = null;
  if (adminUrl) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    url = u.toString();
  }
  const config = loadConfig({ LOG_LEVEL: 'silent', ...(url ? { DATABASE_URL: url } : {}) });
  const database = url
    ? await openPostgres(url, { poolSize: config.databasePoolSize })
    : await openPglite({ dataDir: null });
  await database.migrate();
  const secrets = deriveSecrets(
    'bench-idle-secret-long-enough-0123456789abcdef',
    randomBytes(32).toString('base64'),
  );
  const mailer = { send: async () => {} };
  const deps = assembleDeps({ config, database, secrets, mailer, log: pino({ level: 'silent' }) });
  const workers = createWorkers(deps);
  for (const w of workers) w.start();
  let statements: ReturnType<typeof recordStatements> | null = null;
  try {
    await sleep(5000); // start-up work (first ANALYZE, first sweeps) is not idleness
    const before = url ? await pgTransactions(adminUrl!, name) : 0;
    statements = recordStatements();
    await sleep(seconds * 1000);
    const texts = statements.texts.filter((t) => !/pg_stat/.test(t));
    const counted = texts.length;
    if (process.env.BENCH_IDLE_TOP) printTop(texts, seconds);
    statements.stop();
    const after = url ? await pgTransactions(adminUrl!, name) : 0;
    return {
      engine: url ? 'postgres' : 'pglite',
      seconds,
      statementsPerSecond: counted / seconds,
      transactionsPerSecond: url ? (after - before) / seconds : null,
      workers: workers.length,
    };
  } finally {
    statements?.stop();
    await Promise.all(workers.map((w) => w.stop()));
    await database.close();
    if (adminUrl) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }
}

/** BENCH_IDLE_TOP=1: the statements sent most often, per second (to see which loop costs what). */
function printTop(texts: string[], seconds: number) {
  const counts = new Map<string, number>();
  for (const t of texts) {
    const key = t.replace(/\s+/g, ' ').trim().slice(0, 110);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [text, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`${(n / seconds).toFixed(2).padStart(6)}/s  ${text}`);
}

export const formatIdle = (r: IdleResult) =>
  `idle node (${r.engine}, ${r.workers} workers, ${r.seconds} s): ${r.statementsPerSecond.toFixed(1)} statements/s` +
  (r.transactionsPerSecond === null ? '' : `, ${r.transactionsPerSecond.toFixed(1)} transactions/s`);

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runIdleBench({ databaseUrl: process.env.BENCH_DATABASE_URL ?? null });
  console.log(formatIdle(r));
}
