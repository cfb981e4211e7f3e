/**
 * An isolated, migrated database per test file: a fresh in-memory PGlite, or (TEST_ENGINE=postgres)
 * a freshly created database on the server named by TEST_DATABASE_URL, dropped on close.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openPglite, openPostgres } from '../../src/db/client';

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
  key: 'pgliteTemplate' | 'pgliteTemplateDir' | 'postgresTemplate',
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
): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const template = provided('postgresTemplate');
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

export async function createTestDatabase(): Promise<Database> {
  if (testEngine() === 'pglite') {
    const database = await openPglite({ dataDir: null, loadDataDir: pgliteTemplate() });
    await database.migrate();
    return database;
  }
  const scratch = await createScratchPostgresDatabase();
  const database = await openPostgres(scratch.url, 10);
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
