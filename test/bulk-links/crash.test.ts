/**
 * A crash during processing: the real service runs as a child process and is killed with SIGKILL
 * while a 300-row job is half done, then restarted on the same data. Every row ends with exactly one
 * link or an error: no row without an outcome, no second link for a row, no link without its row.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPglite, openPostgres } from '../../src/db/client';
import { accounts, clients, kycUsers, opcos, projects } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { deriveSecrets } from '../../src/shared/crypto';
import { createScratchPostgresDatabase, testEngine } from '../helpers/db';
import { freePort, type ServiceProcess, startService } from '../helpers/process';

const JWT = `bulk-crash-jwt-${randomBytes(16).toString('hex')}`;
const DATA_KEY = randomBytes(32).toString('base64');
const ROWS = 120;

let dataDir: string;
let databaseUrl: string | null = null;
let dropDatabase: (() => Promise<void>) | null = null;
let token: string;
let projectId: string;
let userId: string;
let service: ServiceProcess | null = null;

async function openDb(): Promise<Database> {
  return databaseUrl
    ? openPostgres(databaseUrl, { poolSize: 2 })
    : openPglite({ dataDir: path.join(dataDir, 'pgdata') });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bulk-crash-'));
  if (testEngine() === 'postgres') {
    const scratch = await createScratchPostgresDatabase('svc_bulk_crash');
    databaseUrl = scratch.url;
    dropDatabase = scratch.drop;
  }
  const db = await openDb();
  await db.migrate();
  const tag = randomBytes(4).toString('hex');
  const [client] = await db.db
    .insert(clients)
    .values({
      companyName: 'Bulk Crash Ltd',
      email: `bulk-${tag}@example.com`,
      status: 'active',
      callbackUrl: 'https://merchant.example.com/return',
    })
    .returning({ id: clients.id });
  const [account] = await db.db
    .insert(accounts)
    .values({
      clientId: client!.id,
      email: `owner-${tag}@example.com`,
      fullName: 'Owner',
      role: 'owner',
      passwordHash: 'x',
    })
    .returning({ id: accounts.id });
  const [opco] = await db.db
    .insert(opcos)
    .values({
      clientId: client!.id,
      status: 'activated',
      opcoType: 'licensed_tpp_sole_trader',
      name: 'Opco',
      domain: 'opco.example.com',
      countryCode: 'GB',
      registrationNumber: '1',
      primaryUseCase: 'ecommerce',
      settlementIban: 'GB82WEST12345698765432',
      mcc: '5999',
      subTppId: `stpp_${tag}`,
    })
    .returning({ id: opcos.id });
  const [project] = await db.db
    .insert(projects)
    .values({ clientId: client!.id, projectName: 'Main', opcoId: opco!.id })
    .returning({ id: projects.id });
  const [user] = await db.db
    .insert(kycUsers)
    .values({ clientId: client!.id, email: `payer-${tag}@example.com` })
    .returning({ id: kycUsers.id });
  projectId = project!.id;
  userId = user!.id;
  await db.close();
  token = (
    await signToken(
      deriveSecrets(JWT, DATA_KEY).jwtKey,
      {
        sub: client!.id,
        type: 'client_access',
        actor_type: 'client_user',
        role: 'owner',
        account_id: account!.id,
        environment: 'sandbox',
      },
      3600,
      new Date(),
    )
  ).token;
}, 180_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  await dropDatabase?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function start(port: number) {
  return startService(
    {
      SVC_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      SVC_JWT_SECRET: JWT,
      SVC_DATA_KEY: DATA_KEY,
      LOG_LEVEL: 'warn',
      SVC_WORKER_POLL_MS: '20',
      SVC_BULK_PAYLINK_BATCH_SIZE: '10',
      // Rows leased by the killed process are taken again after this (the lease is the stale period).
      SVC_IDEMPOTENCY_STALE_SECONDS: '10',
    },
    port,
  );
}

async function api(pathname: string, init: RequestInit = {}) {
  const res = await fetch(`${service!.baseUrl}/api/v1${pathname}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(init.headers ?? {}),
    },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('crash during bulk processing', () => {
  it('SIGKILL mid-job, restart: every row ends with exactly one link or an error', async () => {
    const port = await freePort();
    service = await start(port);
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      amount: i % 50 === 7 ? 'bad' : `${(i % 90) + 1}.00`,
      user_id: userId,
      reference: i % 40 === 3 ? `sim_fail_${i}` : i % 40 === 5 ? `sim_fail_once_${i}` : `row-${i}`,
    }));
    const created = await api('/checkout/paylink/bulk', {
      method: 'POST',
      headers: { 'x-idempotency-key': `crash-${randomBytes(4).toString('hex')}` },
      body: JSON.stringify({
        rows,
        defaults: { project_id: projectId, currency: 'EUR' },
        create_missing_users: false,
      }),
    });
    expect(created.status).toBe(202);
    const bulkId = created.body.bulk_id as string;

    // Kill once part of the job is done.
    const until = Date.now() + 180_000;
    for (;;) {
      const job = await api(`/checkout/paylink/bulk/${bulkId}`);
      if (job.body.counts.created >= 20) break;
      if (Date.now() > until) throw new Error(`no progress: ${JSON.stringify(job.body)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    service.child.kill('SIGKILL');
    expect(await service.exited).toBeNull();

    service = await start(port);
    const deadline = Date.now() + 240_000;
    let job: Record<string, any>;
    for (;;) {
      job = (await api(`/checkout/paylink/bulk/${bulkId}`)).body;
      if (job.status === 'completed_with_errors' || job.status === 'completed') break;
      if (Date.now() > deadline) throw new Error(`job did not finish: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const all: Record<string, any>[] = [];
    for (let page = 1; page <= 2; page++)
      all.push(
        ...((await api(`/checkout/paylink/bulk/${bulkId}/rows?page_size=200&page=${page}`)).body.rows as []),
      );
    expect(all).toHaveLength(ROWS);
    const links: Record<string, any>[] = [];
    for (let page = 1; ; page++) {
      const res = (await api(`/transactions?origin_type=bulk&page_size=200&page=${page}`)).body;
      links.push(...(res.transactions as []));
      if (page >= res.pagination.total_pages) break;
    }
    const invalid = rows.filter((r) => r.amount === 'bad').length;
    const alwaysFail = rows.filter(
      (r) => r.reference.startsWith('sim_fail_') && !r.reference.startsWith('sim_fail_once_'),
    ).length;
    for (const r of all) {
      if (r.status === 'created') {
        expect(r.transaction_id).toBeTruthy();
        expect(r.errors).toEqual([]);
      } else {
        expect(['failed', 'invalid']).toContain(r.status);
        expect(r.transaction_id).toBeNull();
        expect(r.errors.length).toBeGreaterThan(0);
      }
    }
    const createdRows = all.filter((r) => r.status === 'created');
    const failOnce = rows.filter((r) => r.reference.startsWith('sim_fail_once_')).length;
    // A sim_fail_once row fails on its first attempt; one whose first attempt the kill interrupted
    // before its failure was written is tried again after the restart, as its second attempt, and
    // is created. Every other row's outcome is fixed.
    const createdOnce = createdRows.filter((r) => String(r.reference).startsWith('sim_fail_once_')).length;
    expect(createdOnce).toBeLessThanOrEqual(1);
    expect(createdRows).toHaveLength(ROWS - invalid - alwaysFail - failOnce + createdOnce);
    expect(all.filter((r) => r.status === 'invalid')).toHaveLength(invalid);
    // One link per created row, none extra.
    expect(links).toHaveLength(createdRows.length);
    expect(new Set(createdRows.map((r) => r.transaction_id)).size).toBe(createdRows.length);
    expect(new Set(links.map((l) => l.transaction_id))).toEqual(
      new Set(createdRows.map((r) => r.transaction_id)),
    );
    expect(links.every((l) => l.origin.id === bulkId)).toBe(true);
    expect(job.counts).toMatchObject({ total: ROWS, created: createdRows.length, pending: 0 });

    // Retry: sim_fail_once_ rows succeed on their second attempt, the others fail again; still one link per row.
    const t0 = Date.now();
    expect((await api(`/checkout/paylink/bulk/${bulkId}/retry`, { method: 'POST', body: '{}' })).status).toBe(
      202,
    );
    for (;;) {
      job = (await api(`/checkout/paylink/bulk/${bulkId}`)).body;
      if (job.status === 'completed_with_errors') break;
      if (Date.now() - t0 > 120_000) throw new Error(`retry did not finish: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job.counts).toMatchObject({
      created: createdRows.length + failOnce - createdOnce,
      failed: alwaysFail,
      invalid,
    });
    const after = (await api('/transactions?origin_type=bulk&page_size=1')).body;
    expect(after.pagination.total).toBe(createdRows.length + failOnce - createdOnce);

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 600_000);
});
