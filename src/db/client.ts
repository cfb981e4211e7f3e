/**
 * One Drizzle handle over either engine: embedded PGlite (default, data in SVC_DATA_DIR/pgdata)
 * or PostgreSQL through node-postgres when DATABASE_URL is set. Same schema, same migrations.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { lockDataDir } from './data-dir-lock';
import { pglitePreparedQuery } from './pglite-prepared';
import * as schema from './schema/index';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, any>;
/** Either the root handle or an open transaction: repos take this so callers choose the scope. */
export type DbOrTx = Db | Tx;

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../drizzle');

export interface Database {
  db: Db;
  engine: 'pglite' | 'postgres';
  /** Applies pending migrations (serialized across nodes by an advisory lock on PostgreSQL). */
  migrate(): Promise<void>;
  /** True when the database answers and every committed migration is applied. */
  ready(): Promise<{ ok: boolean; reason?: string }>;
  close(): Promise<void>;
  /**
   * One statement outside any transaction, for the hot paths: on PostgreSQL a named prepared
   * statement (parsed and planned once per pooled connection), on PGlite a statement PREPAREd once
   * and run with EXECUTE (db/pglite-prepared.ts). `name`
   * must always go with the same `text`. Rows come with the driver's default types (timestamps
   * as Date); map them with mapRow (db/hot.ts).
   */
  query<T = Record<string, unknown>>(name: string, text: string, params: unknown[]): Promise<T[]>;
}

function journalEntries(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8'));
  return journal.entries.length;
}

async function checkReady(db: Db): Promise<{ ok: boolean; reason?: string }> {
  try {
    const rows = await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const n = Number((rows as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
    const expected = journalEntries();
    return n >= expected
      ? { ok: true }
      : { ok: false, reason: `migrations pending (${n}/${expected} applied)` };
  } catch {
    return { ok: false, reason: 'database unreachable or not migrated' };
  }
}

export interface PgliteOptions {
  /** Directory for the data; null for in-memory. */
  dataDir: string | null;
  /** Optional tarball of a data directory to start from (test template). */
  loadDataDir?: Blob;
}

export async function openPglite(opts: PgliteOptions): Promise<Database> {
  // Loaded here, not at the top: a PostgreSQL deployment never loads PGlite or its WASM.
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  const release = opts.dataDir ? lockDataDir(opts.dataDir) : null;
  const client = new PGlite({ dataDir: opts.dataDir ?? undefined, loadDataDir: opts.loadDataDir });
  await client.waitReady;
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  const prepared = pglitePreparedQuery(client);
  return {
    db,
    engine: 'pglite',
    migrate: async () => {
      await migratePglite(drizzlePglite({ client, schema }), { migrationsFolder: MIGRATIONS_DIR });
    },
    ready: () => checkReady(db),
    query: <T>(_name: string, text: string, params: unknown[]) => prepared<T>(text, params),
    close: async () => {
      await client.close();
      release?.();
    },
  };
}

/** "cached plan must not change result type" (feature_not_supported). */
const STALE_PREPARED_STATEMENT = '0A000';

export interface PostgresOptions {
  poolSize?: number;
  /**
   * Run the hot statements as named prepared statements (parsed once per connection). Off behind
   * a transaction-mode pooler that does not carry them across transactions (PgBouncer before 1.21):
   * the next transaction may run on another server connection, where the name does not exist.
   */
  preparedStatements?: boolean;
}

export async function openPostgres(url: string, opts: PostgresOptions = {}): Promise<Database> {
  const { poolSize = 10, preparedStatements = true } = opts;
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it. Query errors surface to callers.
  });
  const db = drizzlePg({ client: pool, schema }) as unknown as Db;
  return {
    db,
    engine: 'postgres',
    migrate: async () => {
      // Nodes starting together migrate one at a time. The lock is a transaction-scoped advisory
      // lock held by an open transaction on a second connection: unlike a session lock, it works
      // through a transaction-mode pooler (which pins a server connection for a transaction only)
      // and is released by the commit, or by the connection's end if the node dies.
      const lock = new pg.Client({ connectionString: url });
      await lock.connect();
      try {
        await lock.query('begin');
        await lock.query('select pg_advisory_xact_lock(724011)');
        const conn = await pool.connect();
        try {
          await migratePg(drizzlePg({ client: conn, schema }), { migrationsFolder: MIGRATIONS_DIR });
        } finally {
          conn.release();
        }
        await lock.query('commit');
      } finally {
        await lock.end().catch(() => {});
      }
    },
    ready: () => checkReady(db),
    query: async <T>(name: string, text: string, params: unknown[]) => {
      if (!preparedStatements) return (await pool.query({ text, values: params })).rows as T[];
      const conn = await pool.connect();
      try {
        const rows = (await conn.query({ name, text, values: params })).rows as T[];
        conn.release();
        return rows;
      } catch (err) {
        if ((err as { code?: string }).code !== STALE_PREPARED_STATEMENT) {
          conn.release();
          throw err;
        }
        // A migration changed a table under this connection's prepared statement (the statement
        // did not run). The connection is dropped, with its prepared statements, and this call
        // runs unnamed; the hot statements name their columns (db/hot.ts, columnList), so only a
        // migration that is not additive gets here.
        conn.release(true);
        return (await pool.query({ text, values: params })).rows as T[];
      }
    },
    close: () => pool.end(),
  };
}

export async function openDatabase(config: {
  databaseUrl: string | null;
  dataDir: string;
  databasePoolSize: number;
  databasePreparedStatements?: boolean;
}): Promise<Database> {
  if (config.databaseUrl)
    return openPostgres(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements ?? true,
    });
  return openPglite({ dataDir: path.join(config.dataDir, 'pgdata') });
}

/** Rows of a raw `db.execute` on either driver. */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}
