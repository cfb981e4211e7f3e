/**
 * Partitioned history at 10 million rows (issue 42; docs/guides/scaling.md, "Partitioned history").
 * Not in CI. On a scratch PostgreSQL database per layout, BENCH_ROWS activity-log entries (default
 * 10,000,000) spread evenly over the last BENCH_MONTHS months (default 24) and BENCH_CLIENTS clients
 * (default 50), then, for the plain table and for the monthly partitions:
 *  - the activity list as the API runs it (listActivityLogs: the client's count and one page of 50),
 *    first page and page 201 (offset 10,000), with an EXPLAIN (ANALYZE, BUFFERS) summary of each;
 *  - a lookup by id (findActivity), and, partitioned, the same with partition pruning off (what a
 *    partition key that does not carry the time would cost);
 *  - the retention run (purgeOldActivityLogs at 365 days): on the plain table the row sweep for
 *    BENCH_RETENTION_SECONDS (default 60), extrapolated to every expired row; partitioned, the whole
 *    run (expired months dropped, the straddling month's rows deleted).
 * Rows are generated with generate_series (UUIDv7 ids made from each row's time), without the
 * foreign-key checks (session_replication_role = replica) and with the indexes built after the load;
 * each database is dropped at the end.
 *
 *   npm run bench:partitions
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_ROWS=1000000 npm run bench:partitions
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, type Db, openPostgres, rowsOf } from '../src/db/client';
import {
  convertTable,
  createMonthPartition,
  listPartitions,
  monthStart,
  partitionName,
  uuidBound,
} from '../src/db/partitions';
import {
  countActivityStatement,
  findActivityStatement,
  listActivityStatement,
} from '../src/modules/activity/activity.repo';
import { listActivityLogs } from '../src/modules/activity/activity.service';
import { purgeOldActivityLogs } from '../src/modules/notifications/notifications.worker';
import { ManualClock } from '../src/shared/clock';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const MONTHS = Number(process.env.BENCH_MONTHS ?? 24);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const RETENTION_SECONDS = Number(process.env.BENCH_RETENTION_SECONDS ?? 60);
const RETENTION_DAYS = 365;
const PAGE = 50;
const DEEP_OFFSET = 10_000;

type Layout = 'plain' | 'partitioned';

interface Timed {
  ms: number;
  plan: string;
}

interface LayoutResult {
  layout: Layout;
  generateSeconds: number;
  sizeMb: number;
  partitions: number;
  firstPage: { apiMs: number; count: Timed; page: Timed };
  deepPage: { apiMs: number; page: Timed };
  byId: Timed;
  byIdNoPruning?: Timed;
  retention: {
    seconds: number;
    rows: number;
    expired: number;
    extrapolatedSeconds: number;
    partitionsDropped: number;
  };
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const rows = async <T>(db: Db, q: SQL | string) =>
  rowsOf<T>(await db.execute(typeof q === 'string' ? sql.raw(q) : q));

/** Milliseconds of the best of three runs (the first warms the cache). */
async function best(run: () => Promise<unknown>, times = 3): Promise<number> {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await run();
    min = Math.min(min, performance.now() - t);
  }
  return Math.round(min * 10) / 10;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** A one-line summary of EXPLAIN (ANALYZE, BUFFERS): top node, scans by kind, partitions touched, buffers. */
async function explain(db: Db, statement: SQL): Promise<Timed> {
  const [r] = await rows<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
    db,
    sql`explain (analyze, buffers, format json) ${statement}`,
  );
  const { Plan: plan, 'Execution Time': ms } = r!['QUERY PLAN'][0];
  const scans = new Map<string, number>();
  const relations = new Set<string>();
  const walk = (n: PlanNode) => {
    if (/Scan/.test(n['Node Type'])) {
      scans.set(n['Node Type'], (scans.get(n['Node Type']) ?? 0) + 1);
      if (n['Relation Name']) relations.add(n['Relation Name']);
    }
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(plan);
  const kinds = [...scans].map(([k, n]) => `${n}× ${k}`).join(', ');
  const buffers = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
  return {
    ms: Math.round(ms * 10) / 10,
    plan: `${plan['Node Type']}: ${kinds}; ${relations.size} relation(s); ${buffers} buffers`,
  };
}

/** The generated rows whose time falls in [from, to): row g's time is start + (g - 1) * step. */
function rowRange(start: number, step: number, from: number, to: number): [number, number] {
  const lo = Math.max(1, Math.ceil((from - start) / step) + 1);
  const hi = Math.min(ROWS, Math.ceil((to - start) / step));
  return [lo, hi];
}

/** INSERT … SELECT of rows lo..hi into `table` (UUIDv7 ids from each row's time; client by g). */
function generate(table: string, lo: number, hi: number, start: number, step: number): string {
  return `insert into ${table} (id, client_id, occurred_at, action, outcome, actor_type, actor_account_id,
      target_type, target_id, request_id, ip, user_agent, method, path, metadata, created_at)
    select (lpad(to_hex(t.ms), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
           c.ids[1 + g % ${CLIENTS}], to_timestamp(t.ms / 1000.0),
           (array['payment_link.created','payment.status_changed','webhook.updated','member.login'])[1 + g % 4],
           'success', 'client_api', null, 'payment_link', md5(g::text), 'req-' || g, '203.0.113.' || (g % 250),
           'bench/1.0', 'POST', '/api/v1/checkout/paylink', '{}'::jsonb, to_timestamp(t.ms / 1000.0)
      from generate_series(${lo}, ${hi}) g
      cross join lateral (select (${start} + (g - 1) * ${step})::bigint as ms) t
      cross join (select array_agg(id order by id) as ids from clients) c`;
}

async function scratch(layout: Layout): Promise<{ database: Database; drop: () => Promise<void> }> {
  const name = `svc_bench_part_${layout}_${randomBytes(3).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const database = await openPostgres(withDatabase(ADMIN_URL, name), { poolSize: 4 });
  await database.migrate();
  return {
    database,
    drop: async () => {
      await database.close();
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function runLayout(layout: Layout, now: Date): Promise<LayoutResult> {
  const { database, drop } = await scratch(layout);
  const db = database.db;
  try {
    await db.execute(
      sql.raw(`insert into clients (id, company_name, email, status)
        select gen_random_uuid(), 'Bench ' || g, 'bench-' || g || '@example.com', 'active'
          from generate_series(1, ${CLIENTS}) g`),
    );
    const [{ id: clientId } = { id: '' }] = await rows<{ id: string }>(
      db,
      'select id from clients order by id limit 1',
    );
    const end = now.getTime();
    const start = monthStart(now, -MONTHS).getTime();
    const step = (end - start) / ROWS;
    const t0 = performance.now();
    if (layout === 'plain') await loadPlain(db, start, step);
    else await loadPartitioned(db, now, start, step, end);
    await db.execute(sql`vacuum analyze activity_logs`);
    const generateSeconds = Math.round((performance.now() - t0) / 100) / 10;
    const [size] = await rows<{ mb: number }>(
      db,
      `select (coalesce(sum(pg_total_relation_size(c.oid)), 0) / 1048576)::int as mb from pg_class c
        where c.relname like 'activity_logs%' and c.relkind in ('r', 'p')`,
    );
    const partitions = layout === 'plain' ? 1 : (await listPartitions(db, 'activity_logs')).length;

    const deps = { db };
    const list = (offset: number) =>
      listActivityLogs(deps, clientId, { page: offset / PAGE + 1, pageSize: PAGE, offset }, {});
    const firstPage = {
      apiMs: await best(() => list(0)),
      count: await explain(db, countActivityStatement(clientId, {})),
      page: await explain(db, listActivityStatement(clientId, {}, PAGE, 0)),
    };
    const deepPage = {
      apiMs: await best(() => list(DEEP_OFFSET)),
      page: await explain(db, listActivityStatement(clientId, {}, PAGE, DEEP_OFFSET)),
    };
    // An entry from the middle of the range.
    const [mid] = await rows<{ id: string }>(
      db,
      sql`select id from activity_logs where client_id = ${clientId}::uuid
            and id >= ${uuidBound(new Date((start + end) / 2))}::uuid order by id limit 1`,
    );
    const byId = await explain(db, findActivityStatement(clientId, mid!.id));
    let byIdNoPruning: Timed | undefined;
    if (layout === 'partitioned')
      byIdNoPruning = await db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_partition_pruning = off`);
        return explain(tx as unknown as Db, findActivityStatement(clientId, mid!.id));
      });

    const retention = await runRetention(database, layout, now);
    return {
      layout,
      generateSeconds,
      sizeMb: size!.mb,
      partitions,
      firstPage,
      deepPage,
      byId,
      byIdNoPruning,
      retention,
    };
  } finally {
    await drop();
  }
}

/** The plain table as the migrations make it: loaded without its indexes, which are then rebuilt. */
async function loadPlain(db: Db, start: number, step: number): Promise<void> {
  const indexes = await rows<{ name: string; def: string }>(
    db,
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as def from pg_index i
       join pg_class c on c.oid = i.indexrelid where i.indrelid = 'activity_logs'::regclass and not i.indisprimary`,
  );
  for (const i of indexes) await db.execute(sql.raw(`drop index ${i.name}`));
  await db.execute(sql`alter table activity_logs drop constraint activity_logs_pkey`);
  await db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    await tx.execute(sql.raw(generate('activity_logs', 1, ROWS, start, step)));
  });
  await db.execute(sql`alter table activity_logs add constraint activity_logs_pkey primary key (id)`);
  for (const i of indexes) await db.execute(sql.raw(i.def));
}

/**
 * The partitioned table as a deployment has it once converted: the maintenance's own conversion (of
 * the empty table, as if BENCH_MONTHS months ago) and monthly partitions, each loaded as a table of
 * its own and attached (ATTACH builds the partition's indexes).
 */
async function loadPartitioned(db: Db, now: Date, start: number, step: number, end: number): Promise<void> {
  await convertTable(db, 'activity_logs', new Date(start - 8 * 86_400_000));
  for (let m = 0; m <= MONTHS + 1; m++) {
    const month = monthStart(new Date(start), m);
    if (month.getTime() > now.getTime()) break;
    const name = partitionName('activity_logs', month);
    const [lo, hi] = rowRange(
      start,
      step,
      month.getTime(),
      Math.min(monthStart(month, 1).getTime(), end + 1),
    );
    if (hi < lo) {
      await createMonthPartition(db, 'activity_logs', month);
      continue;
    }
    await db.execute(sql.raw(`create table ${name} (like activity_logs including defaults)`));
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql.raw(generate(name, lo, hi, start, step)));
    });
    await db.execute(
      sql.raw(`alter table activity_logs attach partition ${name}
        for values from ('${uuidBound(month)}') to ('${uuidBound(monthStart(month, 1))}')`),
    );
  }
  for (let m = 1; m <= 3; m++) await createMonthPartition(db, 'activity_logs', monthStart(now, m));
}

async function runRetention(database: Database, layout: Layout, now: Date) {
  const db = database.db;
  const clock = new ManualClock(now);
  const deps = { db, clock, database, config: { activityLogRetentionDays: RETENTION_DAYS } };
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * 86_400_000);
  const [{ n: expired } = { n: 0 }] = await rows<{ n: number }>(
    db,
    sql`select count(*)::int as n from activity_logs where occurred_at < ${cutoff.toISOString()}::timestamptz`,
  );
  const before = layout === 'plain' ? 1 : (await listPartitions(db, 'activity_logs')).length;
  const t = performance.now();
  let removed = 0;
  const budget = layout === 'plain' ? RETENTION_SECONDS * 1000 : Number.POSITIVE_INFINITY;
  for (;;) {
    const n = await purgeOldActivityLogs(deps);
    removed += n;
    if (n === 0 || performance.now() - t > budget) break;
  }
  const seconds = Math.round((performance.now() - t) / 100) / 10;
  const after = layout === 'plain' ? 1 : (await listPartitions(db, 'activity_logs')).length;
  const extrapolatedSeconds =
    removed >= expired ? seconds : Math.round((seconds * expired) / Math.max(removed, 1));
  return { seconds, rows: removed, expired, extrapolatedSeconds, partitionsDropped: before - after };
}

function report(r: LayoutResult): string {
  const lines = [
    `## ${r.layout}: ${ROWS.toLocaleString('en')} rows over ${MONTHS} months, ${r.partitions} partition(s), ${r.sizeMb} MB, generated in ${r.generateSeconds} s`,
    `first page (API: count + page): ${r.firstPage.apiMs} ms`,
    `  count: ${r.firstPage.count.ms} ms — ${r.firstPage.count.plan}`,
    `  page:  ${r.firstPage.page.ms} ms — ${r.firstPage.page.plan}`,
    `page at offset ${DEEP_OFFSET} (API): ${r.deepPage.apiMs} ms`,
    `  page:  ${r.deepPage.page.ms} ms — ${r.deepPage.page.plan}`,
    `lookup by id: ${r.byId.ms} ms — ${r.byId.plan}`,
    ...(r.byIdNoPruning
      ? [`lookup by id, pruning off: ${r.byIdNoPruning.ms} ms — ${r.byIdNoPruning.plan}`]
      : []),
    `retention (${RETENTION_DAYS} days, ${r.retention.expired.toLocaleString('en')} rows expired): ${r.retention.rows.toLocaleString('en')} rows in ${r.retention.seconds} s` +
      (r.retention.rows < r.retention.expired
        ? ` (all of them: ~${r.retention.extrapolatedSeconds} s extrapolated)`
        : '') +
      (r.retention.partitionsDropped ? `, ${r.retention.partitionsDropped} partitions dropped` : ''),
  ];
  return lines.join('\n');
}

async function main() {
  const now = new Date();
  const layouts = (process.env.BENCH_LAYOUTS ?? 'plain,partitioned').split(',') as Layout[];
  for (const layout of layouts) {
    const r = await runLayout(layout, now);
    console.log(report(r));
    console.log(JSON.stringify(r));
  }
}

await main();
