/**
 * An isolated, migrated database per test file: a fresh in-memory PGlite, or (TEST_ENGINE=postgres)
 * a freshly created database on the server named by TEST_DATABASE_URL, dropped on close.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
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

/** A freshly created, empty database on the server named by TEST_DATABASE_URL, and how to drop it. */
export async function createScratchPostgresDatabase(
  prefix = 'svc_test',
): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
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
    const database = await openPglite({ dataDir: null });
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
