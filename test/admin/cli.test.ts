/**
 * The `svc admin ...` CLI run as a real process (`node bin/svc.mjs`) against its own database (a
 * PGlite data directory, or a fresh PostgreSQL database on the postgres engine), then checked
 * through the HTTP admin API over the same database. Each run opens the database (seconds), so
 * only a few run here; cli-commands.test.ts drives every command in-process.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client';
import { clients } from '../../src/db/schema/index';
import { createTestApp } from '../helpers/app';
import { createScratchPostgresDatabase, testEngine } from '../helpers/db';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
let dataDir: string;
let databaseUrl: string | null = null;
let dropDatabase: (() => Promise<void>) | null = null;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
  if (testEngine() === 'postgres') {
    const scratch = await createScratchPostgresDatabase('svc_cli');
    databaseUrl = scratch.url;
    dropDatabase = scratch.drop;
  }
});
afterAll(async () => {
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

async function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/svc.mjs', ...args], {
      cwd: ROOT,
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** Opens the CLI's database in this process (PGlite allows one process at a time, so close it after). */
async function withDatabase<T>(f: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl, dataDir, databasePoolSize: 2 });
  try {
    await database.migrate();
    return await f(database);
  } finally {
    await database.close();
  }
}

describe('svc admin CLI', () => {
  it('creates staff and switches a client, the same as the admin API', { timeout: 180_000 }, async () => {
    const created = await svc(
      'admin',
      'create-staff',
      '--email',
      'ops@cli.example.com',
      '--password',
      'cli-password-1',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: 'ops@cli.example.com' });

    const clientId = await withDatabase(async ({ db }) => {
      const [c] = await db
        .insert(clients)
        .values({
          companyName: 'CLI Co',
          email: `cli-${randomBytes(3).toString('hex')}@example.com`,
          status: 'active',
        })
        .returning();
      return c!.id;
    });

    const set = await svc(
      'admin',
      'set-client',
      clientId,
      '--payment-links',
      'off',
      '--production-access',
      'on',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      payment_links_enabled: false,
      production_access_enabled: true,
    });

    const grant = await svc('admin', 'grant-visibility', clientId, 'poa', 'aml_hits');
    expect(JSON.parse(grant.stdout)).toEqual({ groups: ['poa', 'aml_hits'] });

    const reg = await svc('admin', 'registration', 'off');
    expect(JSON.parse(reg.stdout)).toEqual({ registration_enabled: false });

    // The HTTP admin API over the same database sees everything, and the CLI's staff can log in.
    await withDatabase(async (database) => {
      const ctx = await createTestApp({ database });
      try {
        const login = await ctx.app.inject({
          method: 'POST',
          url: '/api/v1/admin/auth/login',
          payload: { email: 'ops@cli.example.com', password: 'cli-password-1' },
        });
        expect(login.statusCode).toBe(200);
        const headers = { authorization: `Bearer ${login.json().access_token}` };
        const c = (await ctx.app.inject({ url: `/api/v1/admin/clients/${clientId}`, headers })).json();
        expect(c).toMatchObject({
          payment_links_enabled: false,
          production_access_enabled: true,
          kyc_links_enabled: true,
          visibility_groups: ['poa', 'aml_hits'],
        });
        const settings = (await ctx.app.inject({ url: '/api/v1/admin/settings', headers })).json();
        expect(settings).toEqual({ registration_enabled: false });
      } finally {
        await ctx.close();
      }
    });
  });

  it('prints usage for unknown commands', { timeout: 60_000 }, async () => {
    const res = await svc('admin', 'launch-rockets');
    expect(res.code).toBe(64);
    expect(res.stdout).toContain('svc admin create-staff');
  });
});
