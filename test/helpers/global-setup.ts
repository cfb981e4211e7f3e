/**
 * vitest globalSetup: migrates one template database per engine before any test file runs, so each
 * file copies a migrated database instead of running initdb and every migration again (that setup
 * dominated the suite's wall time). Templates are keyed by a hash of the migrations, so a changed
 * migration builds a fresh one; a stale template is never reused.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import type { Db } from '../../src/db/client';
import { maintainHistoryPartitions } from '../../src/db/partitions';

const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../drizzle');
const CACHE_DIR = path.resolve(import.meta.dirname, '../../node_modules/.cache/svc-test');

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    pgliteTemplateDir: string;
    postgresTemplate: string;
    /** Names this run's per-worker PostgreSQL databases (test/helpers/db.ts), dropped at teardown. */
    runId: string;
  }
}

function migrationsHash(): string {
  const hash = createHash('sha256');
  const pgliteVersion = JSON.parse(
    fs.readFileSync(
      path.resolve(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'),
      'utf8',
    ),
  ).version;
  hash.update(pgliteVersion);
  for (const file of fs.readdirSync(MIGRATIONS_DIR, { recursive: true }).map(String).sort()) {
    const full = path.join(MIGRATIONS_DIR, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  return hash.digest('hex').slice(0, 12);
}

async function pgliteTemplate(key: string): Promise<string> {
  const file = path.join(CACHE_DIR, `pglite-${key}.tar`);
  if (fs.existsSync(file)) return file;
  const client = new PGlite();
  await client.waitReady;
  await migratePglite(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS_DIR });
  const dump = await client.dumpDataDir('none');
  await client.close();
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, file);
  return file;
}

/** The same migrated database as a data directory, for service processes (copied to SVC_DATA_DIR/pgdata). */
async function pgliteTemplateDir(key: string): Promise<string> {
  const dir = path.join(CACHE_DIR, `pglite-${key}.d`);
  if (fs.existsSync(dir)) return dir;
  const partial = `${dir}.${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  const client = new PGlite({ dataDir: partial });
  await client.waitReady;
  await migratePglite(drizzlePglite({ client }), { migrationsFolder: MIGRATIONS_DIR });
  await client.close();
  try {
    fs.renameSync(partial, dir);
  } catch {
    fs.rmSync(partial, { recursive: true, force: true });
  }
  return dir;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * TEST_PARTITIONED_HISTORY=1: the PostgreSQL template's history tables are partitioned as the
 * maintenance job does it on a deployment (src/db/partitions.ts), so that the suite's files run their
 * statements against partitioned tables. Converted as if three months ago, so that today's rows land
 * in a monthly partition rather than in the one kept for the rows already there.
 */
const partitionedHistory = () => process.env.TEST_PARTITIONED_HISTORY === '1';

async function partitionHistory(conn: pg.Client): Promise<void> {
  const db = drizzlePg({ client: conn }) as unknown as Db;
  const now = new Date();
  await maintainHistoryPartitions(db, new Date(now.getTime() - 90 * 86_400_000));
  await maintainHistoryPartitions(db, now);
}

async function postgresTemplate(adminUrl: string, key: string): Promise<string> {
  const name = partitionedHistory()
    ? `svc_tmpl_${key}_p${new Date().toISOString().slice(0, 7).replace('-', '')}`
    : `svc_tmpl_${key}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return name;
    // Built under a scratch name and renamed, so an interrupted build never passes for a template.
    const building = `${name}_b${process.pid}`;
    await admin.query(`drop database if exists ${building}`);
    await admin.query(`create database ${building}`);
    const conn = new pg.Client({ connectionString: withDatabase(adminUrl, building) });
    await conn.connect();
    try {
      await migratePg(drizzlePg({ client: conn }), { migrationsFolder: MIGRATIONS_DIR });
      if (partitionedHistory()) await partitionHistory(conn);
    } finally {
      await conn.end();
    }
    try {
      await admin.query(`alter database ${building} rename to ${name}`);
    } catch (err) {
      // Another run built the same template first (duplicate_database): use theirs.
      if ((err as { code?: string }).code !== '42P04') throw err;
      await admin.query(`drop database if exists ${building}`);
    }
    return name;
  } finally {
    await admin.end();
  }
}

/** Drops the worker databases of a run (they live as long as their worker process). */
async function dropWorkerDatabases(adminUrl: string, runId: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      'select datname from pg_database where datname like $1',
      [`svc_w_${runId}_%`],
    );
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
  } finally {
    await admin.end();
  }
}

/**
 * In CI the compiled server (dist/, which service-process tests start) is built here, once and
 * before any file runs, so its build time never counts against a test's hook timeout. Locally the
 * first process test builds it when src/ changed (test/helpers/process.ts, ensureBuilt).
 */
let builtOnce = false;
function buildIfStale(): void {
  if (builtOnce || !process.env.CI) return;
  builtOnce = true;
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: 'inherit',
  });
}

export default async function setup(project: TestProject) {
  buildIfStale();
  const key = migrationsHash();
  const engine = project.config.env?.TEST_ENGINE;
  if (engine === 'postgres') {
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (adminUrl) {
      project.provide('postgresTemplate', await postgresTemplate(adminUrl, key));
      const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`;
      project.provide('runId', runId);
      return () => dropWorkerDatabases(adminUrl, runId);
    }
  } else {
    project.provide('pgliteTemplate', await pgliteTemplate(key));
    project.provide('pgliteTemplateDir', await pgliteTemplateDir(key));
  }
}
