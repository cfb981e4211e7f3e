/**
 * Migrated test databases: a fresh in-memory PGlite, or (TEST_ENGINE=postgres) a freshly created
 * database on the server named by TEST_DATABASE_URL, dropped on close. `leaseTestDatabase` hands
 * out one database per test worker, emptied (every table that holds rows) for each lease: the suite runs
 * with `isolate: false`, so the worker's database outlives a file and the next file reuses it
 * instead of creating and dropping its own (about 1-3 s a file).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openPglite, openPostgres, rowsOf } from '../../src/db/client';

export type TestEngine = 'pglite' | 'postgres';

export function testEngine(): TestEngine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'pglite';
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The migrated template the suite's globalSetup made for this engine (test/helpers/global-setup.ts),
 * or undefined outside a vitest run that has one.
 */
export function provided(
  key: 'pgliteTemplate' | 'pgliteTemplateDir' | 'postgresTemplate' | 'runId',
): string | undefined {
  try {
    return inject(key) || undefined;
  } catch {
    return undefined;
  }
}

let pgliteTemplateBlob: Blob | undefined;
function pgliteTemplate(): Blob | undefined {
  const file = provided('pgliteTemplate');
  if (!file) return undefined;
  pgliteTemplateBlob ??= new Blob([fs.readFileSync(file)]);
  return pgliteTemplateBlob;
}

/**
 * A freshly created database on the server named by TEST_DATABASE_URL, and how to drop it: a copy of
 * the migrated template when the suite has one (migrating it again is then a no-op), else empty.
 */
export async function createScratchPostgresDatabase(
  prefix = 'svc_test',
  fixedName?: string,
  useTemplate = true,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  const name = fixedName ?? `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const template = useTemplate ? provided('postgresTemplate') : undefined;
  try {
    await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(adminUrl, name),
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/**
 * A fresh migrated database. `migrationsOnly`: on PostgreSQL, made by the migrations alone rather
 * than copied from the suite's template (which TEST_PARTITIONED_HISTORY=1 has partitioned).
 */
export async function createTestDatabase(opts: { migrationsOnly?: boolean } = {}): Promise<Database> {
  if (testEngine() === 'pglite') {
    const database = await openPglite({ dataDir: null, loadDataDir: pgliteTemplate() });
    await database.migrate();
    return database;
  }
  const scratch = await createScratchPostgresDatabase('svc_test', undefined, !opts.migrationsOnly);
  const database = await openPostgres(scratch.url, { poolSize: 10 });
  await database.migrate();
  const close = database.close;
  return {
    ...database,
    close: async () => {
      await close();
      await scratch.drop();
    },
  };
}

/** The prefix of this run's worker databases on PostgreSQL; global-setup's teardown drops them. */
export const WORKER_DATABASE_PREFIX = 'svc_w';

interface WorkerDatabase {
  database: Database;
  leased: boolean;
  /** One statement naming the tables that hold rows (computed once). */
  nonEmpty: string;
  /** Per table, the sequences its columns own (serial and identity columns). */
  sequences: Map<string, string[]>;
  /** The database as leased: the same object each time, whose close() is a no-op. */
  view?: Database;
}
let worker: WorkerDatabase | undefined;

async function openWorkerDatabase(): Promise<WorkerDatabase> {
  let database: Database;
  if (testEngine() === 'pglite') {
    database = await createTestDatabase();
  } else {
    const run = provided('runId') ?? randomBytes(4).toString('hex');
    const pool = process.env.VITEST_POOL_ID ?? String(process.pid);
    const scratch = await createScratchPostgresDatabase(
      WORKER_DATABASE_PREFIX,
      `${WORKER_DATABASE_PREFIX}_${run}_${pool}_${randomBytes(3).toString('hex')}`,
    );
    database = await openPostgres(scratch.url, { poolSize: 10 });
    await database.migrate();
  }
  // Top-level tables only: a partitioned table (PostgreSQL, src/db/partitions.ts) is emptied through
  // its parent, which has no storage of its own (hence no autovacuum setting below).
  const tables = rowsOf<{ name: string; partitioned: boolean }>(
    await database.db.execute(
      sql`select c.relname as name, c.relkind = 'p' as partitioned
            from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by 1`,
    ),
  );
  const nonEmpty = tables
    .map((t) => `select ${literal(t.name)} as name where exists (select 1 from ${ident(t.name)})`)
    .join(' union all ');
  const owned = rowsOf<{ table: string; sequence: string }>(
    await database.db.execute(sql`select t.relname as "table", s.relname as "sequence"
      from pg_class s
      join pg_depend d on d.objid = s.oid and d.classid = 'pg_class'::regclass and d.deptype in ('a', 'i')
      join pg_class t on t.oid = d.refobjid
      join pg_namespace n on n.oid = s.relnamespace and n.nspname = 'public'
      where s.relkind = 'S'`),
  );
  const sequences = new Map<string, string[]>();
  for (const o of owned) sequences.set(o.table, [...(sequences.get(o.table) ?? []), o.sequence]);
  if (database.engine === 'postgres') {
    // Emptied by DELETE, a table keeps its pages; a vacuum would let new rows fill the freed space,
    // and a select without ORDER BY would no longer return them in insertion order, as it did after
    // a TRUNCATE. The worker's database is short-lived: no vacuum on its tables (PGlite runs none).
    const stored = rowsOf<{ name: string }>(
      await database.db.execute(
        sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'public' and c.relkind = 'r'`,
      ),
    );
    for (const t of stored)
      await database.db.execute(sql.raw(`alter table ${ident(t.name)} set (autovacuum_enabled = false)`));
  }
  return { database, leased: false, nonEmpty, sequences };
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Empties the tables that hold rows and restarts the sequences they own, as `TRUNCATE ... RESTART
 * IDENTITY` of every table did: one existence check of each table, then a DELETE of the few a file
 * wrote to. A TRUNCATE of all 80-odd tables replaced each table's and index's files and took 1 to 3
 * s per file on a loaded machine. Triggers (the activity log's refusal to delete, foreign keys) are
 * off for it.
 */
async function emptyDatabase(w: WorkerDatabase): Promise<void> {
  const filled = rowsOf<{ name: string }>(await w.database.db.execute(sql.raw(w.nonEmpty)));
  if (filled.length === 0) return;
  await w.database.db.transaction(async (tx) => {
    await tx.execute(sql`set local session_replication_role = replica`);
    for (const { name } of filled) {
      await tx.execute(sql.raw(`delete from ${ident(name)}`));
      for (const seq of w.sequences.get(name) ?? [])
        await tx.execute(sql.raw(`alter sequence ${ident(seq)} restart`));
    }
  });
}

/** A lease on a test database: `release` gives it back (the worker's) or drops it (a fresh one). */
export interface DatabaseLease {
  database: Database;
  release: () => Promise<void>;
}

/**
 * The worker's own database, emptied, when no app holds it; null while one does. Closing the leased
 * Database itself is a no-op: the worker keeps it. `database` is the same object for every lease of
 * this worker, so an app built over it (the worker's shared app, test/helpers/app.ts) outlives a lease.
 */
export async function leaseWorkerDatabase(): Promise<DatabaseLease | null> {
  if (worker?.leased) return null;
  worker ??= await openWorkerDatabase();
  const w = worker;
  w.leased = true;
  try {
    await emptyDatabase(w);
  } catch (err) {
    w.leased = false;
    throw err;
  }
  w.view ??= { ...w.database, close: async () => {} };
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    w.leased = false;
  };
  return { database: w.view, release };
}

/**
 * An empty migrated database for one app: the worker's own when no other app holds it (emptied
 * first), else a fresh one as before. `release` gives the worker's database back (or drops the
 * fresh one).
 */
export async function leaseTestDatabase(): Promise<DatabaseLease> {
  const own = await leaseWorkerDatabase();
  if (own) return own;
  const database = await createTestDatabase();
  return { database, release: () => database.close() };
}
