/**
 * API benchmark (part of `npm run bench`, alone: `npm run bench:api`) on a fresh database (a temp
 * PGlite data dir, or a fresh database on the server of DATABASE_URL). First the floor routes
 * (bench/floor-server.ts: hello+JWT, one INSERT through a pool of 10, one transaction with
 * idempotency+payment+outbox rows) on the same database server, then the service, seeded with a
 * client of BENCH_TRANSACTIONS transactions (INSERT ... SELECT generate_series) and one of 10k:
 *   POST /checkout/paylink (unique idempotency keys), GET /transactions/{id}, GET /transactions
 *   (first page, and status=success) at 10k and at BENCH_TRANSACTIONS rows, POST /auth/login over
 *   several accounts, and a password-spraying burst from one IP (bench/login.ts).
 * Prints every scenario with req/s, p50, p99 and its ratio to its floor, and the service's peak
 * RSS. Options (env): BENCH_DURATION (s, default 15), BENCH_CONNECTIONS (default 10),
 * BENCH_TRANSACTIONS (default 100000), BENCH_LOGIN_ACCOUNTS (default 20).
 */
import { createSecretKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import pg from 'pg';
import { type Database, openPglite, openPostgres } from '../src/db/client';
import { accounts, clients, kycUsers, opcos, projects } from '../src/db/schema/index';
import { signToken } from '../src/modules/auth/sessions/tokens.service';
import { runLoginScenarios, seedLoginAccounts } from './login';
import {
  type Measured,
  measure,
  peakRssMb,
  printTable,
  type Row,
  startNode,
  startService,
  stopChild,
  waitHttp,
} from './report';

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SEED = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);

import { freePort, waitReady } from './service-process';

export { freePort, waitReady };

/** A port, base URL, JWT secret and the environment of a service started by a bench (fresh secrets). */
export async function benchService(extra: Record<string, string> = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_PUBLIC_URL: base,
    SVC_JWT_SECRET: jwtSecret,
    SVC_DATA_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    ...extra,
  };
  return { port, base, jwtSecret, env };
}

interface Seeded {
  clientId: string;
  accountId: string;
  projectId: string;
  userId: string;
  sampleTransactionId: string;
}

export async function seed(database: Database, count = SEED): Promise<Seeded> {
  const db = database.db;
  const tag = randomBytes(4).toString('hex');
  const [c] = await db
    .insert(clients)
    .values({
      companyName: 'Bench Shop',
      email: `bench-${tag}@example.com`,
      status: 'active',
      verifiedAt: new Date(),
      callbackUrl: 'https://merchant.example.com/return',
    })
    .returning({ id: clients.id });
  const clientId = c!.id;
  const [a] = await db
    .insert(accounts)
    .values({
      clientId,
      email: `owner-${tag}@example.com`,
      fullName: 'Bench Owner',
      role: 'owner',
      passwordHash: 'x',
      emailVerifiedAt: new Date(),
    })
    .returning({ id: accounts.id });
  const [o] = await db
    .insert(opcos)
    .values({
      clientId,
      status: 'activated',
      opcoType: 'licensed_tpp_sole_trader',
      name: 'Bench Opco',
      domain: 'bench.example.com',
      countryCode: 'GB',
      registrationNumber: '1',
      primaryUseCase: 'ecommerce',
      settlementIban: 'GB82WEST12345698765432',
      mcc: '5999',
      subTppId: `stpp_${tag}`,
    })
    .returning({ id: opcos.id });
  const [p] = await db
    .insert(projects)
    .values({ clientId, projectName: 'Bench', opcoId: o!.id })
    .returning({ id: projects.id });
  const [u] = await db
    .insert(kycUsers)
    .values({ clientId, email: `payer-${tag}@example.com` })
    .returning({ id: kycUsers.id });
  const t0 = Date.now();
  await db.execute(sql`
    insert into transactions (id, client_id, project_id, user_id, amount, currency, status, provider_status,
                              reconciliation_state, ref_id, checkout_token, expires_at, created_at, updated_at)
    select gen_random_uuid(), ${clientId}::uuid, ${p!.id}::uuid, ${u!.id}::uuid, ((10 + g % 990)::text || '.00')::numeric, 'EUR',
           (array['pending','processing','success','failed','expired','canceled'])[1 + g % 6], 'initiated', 'none',
           'ref_bench_' || ${tag}::text || '_' || g, 'tok_bench_' || ${tag}::text || '_' || g, now() + interval '1 day',
           now() - g * interval '1 second', now() - g * interval '1 second'
      from generate_series(1, ${count}) as g`);
  // What autovacuum does on a live system: statistics plus the visibility map (index-only counts).
  await db.execute(sql`vacuum analyze transactions`);
  console.log(`seeded ${count} transactions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const rows = await db.execute(
    sql`select id from transactions where client_id = ${clientId}::uuid order by created_at desc offset ${Math.floor(count / 2)} limit 1`,
  );
  const sample =
    ((rows as unknown as { rows: { id: string }[] }).rows ?? (rows as unknown as { id: string }[]))[0]?.id ??
    '';
  return { clientId, accountId: a!.id, projectId: p!.id, userId: u!.id, sampleTransactionId: sample };
}

/**
 * A fresh database for a benchmark: a new database on the server of DATABASE_URL (dropped by
 * `cleanup`), else a temp PGlite directory. Points `env` (the service's environment) at it.
 */
export async function openBenchDatabase(
  env: Record<string, string | undefined>,
  prefix: string,
): Promise<{ database: Database; cleanup: () => Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const name = `${prefix}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    env.DATABASE_URL = u.toString();
    return {
      database: await openPostgres(env.DATABASE_URL, { poolSize: 4 }),
      cleanup: async () => {
        const a = new pg.Client({ connectionString: adminUrl });
        await a.connect();
        await a.query(`drop database if exists ${name} with (force)`);
        await a.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  env.SVC_DATA_DIR = dir;
  delete env.DATABASE_URL;
  return {
    database: await openPglite({ dataDir: path.join(dir, 'pgdata') }),
    cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A dashboard access token of the seeded client's owner, signed with the service's secret. */
export async function ownerToken(
  jwtSecret: string,
  c: Pick<Seeded, 'clientId' | 'accountId'>,
): Promise<string> {
  const signed = await signToken(
    new TextEncoder().encode(jwtSecret),
    {
      sub: c.clientId,
      type: 'client_access',
      actor_type: 'client_user',
      role: 'owner',
      account_id: c.accountId,
      environment: 'sandbox',
    },
    3600,
    new Date(),
  );
  return signed.token;
}

export interface ApiBenchSummary {
  engine: string;
  paymentCreationRps: number;
  peakRssMb: number | null;
}

async function main(): Promise<ApiBenchSummary> {
  const { base, jwtSecret, env } = await benchService();
  const adminUrl = process.env.DATABASE_URL;
  const engine = adminUrl ? 'postgres' : 'pglite';
  const { database, cleanup } = await openBenchDatabase(env, 'svc_bench');
  console.log(`engine: ${engine}; ${CONNECTIONS} connections, ${DURATION} s per scenario`);
  await database.migrate();
  const s = await seed(database);
  const small = await seed(database, Math.min(SEED, 10_000));
  const loginEmails = await seedLoginAccounts(database, s.clientId);
  await database.close(); // PGlite: release the data directory for the service

  const amountBody = JSON.stringify({ amount: '49.90' });
  const json = { 'content-type': 'application/json' };
  let seq = 0;
  const uniqueKey = (prefix: string) => [
    {
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        headers: { ...req.headers, 'x-idempotency-key': `${prefix}-${++seq}` },
      }),
    },
  ];

  // Floor routes first, on the same database server, in their own process.
  const floorPort = await freePort();
  const floorSecret = randomBytes(32).toString('hex');
  const floorDir = adminUrl ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'floor-'));
  const floorEnv = {
    ...env,
    PORT: String(floorPort),
    FLOOR_JWT_SECRET: floorSecret,
    FLOOR_PGLITE_DIR: floorDir ? path.join(floorDir, 'pgdata') : undefined,
  };
  const floorBase = `http://127.0.0.1:${floorPort}`;
  // The floor process stays up (idle) while the service is measured: the floors of the creation
  // and the read are measured again right before them, so a ratio compares minutes-apart figures
  // no more (this shared machine's speed drifts by tens of percent between runs and within one).
  const floorChild = startNode('bench/floor-server.ts', floorEnv);
  const floors: Measured[] = [];
  const stopFloor = async () => {
    await stopChild(floorChild);
    if (floorDir) fs.rmSync(floorDir, { recursive: true, force: true });
  };
  let jwtFloorAgain: () => Promise<Measured>;
  let insertFloorAgain: () => Promise<Measured>;
  try {
    await waitHttp(`${floorBase}/readyz`, floorChild);
    const floorToken = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('merchant_1')
      .setExpirationTime('1h')
      .sign(createSecretKey(Buffer.from(floorSecret)));
    const jwtFloorRun = (name: string) =>
      measure(
        name,
        { url: `${floorBase}/jwt`, headers: { authorization: `Bearer ${floorToken}` } },
        CONNECTIONS,
        DURATION,
      );
    const insertFloorRun = (name: string) =>
      measure(
        name,
        { url: `${floorBase}/insert`, method: 'POST', headers: json, body: amountBody },
        CONNECTIONS,
        DURATION,
      );
    jwtFloorAgain = () => jwtFloorRun('hello+JWT (again, right before the read)');
    insertFloorAgain = () => insertFloorRun('one INSERT (again, right before the creation)');
    floors.push(
      await jwtFloorRun('hello+JWT'),
      await insertFloorRun('one INSERT'),
      await measure(
        'tx idempotency+payment+outbox',
        {
          url: `${floorBase}/txn`,
          method: 'POST',
          headers: json,
          body: amountBody,
          requests: uniqueKey('floor'),
        },
        CONNECTIONS,
        DURATION,
      ),
    );
  } catch (err) {
    await stopFloor();
    throw err;
  }
  const [, , txnFloor] = floors as [Measured, Measured, Measured];

  const child = startService(env);
  let rss: number | null = null;
  let creationRps = 0;
  try {
    await waitReady(base, child);
    const auth = { authorization: `Bearer ${await ownerToken(jwtSecret, s)}`, ...json };
    const authSmall = { authorization: `Bearer ${await ownerToken(jwtSecret, small)}`, ...json };
    const body = JSON.stringify({
      amount: '49.90',
      currency: 'EUR',
      project_id: s.projectId,
      user_id: s.userId,
      description: 'bench',
    });
    const m = (name: string, o: autocannon.Options) => measure(name, o, CONNECTIONS, DURATION);
    const rows: Row[] = [];
    const insertFloor = await insertFloorAgain();
    floors.push(insertFloor);
    const create = await m('POST /checkout/paylink (unique keys)', {
      url: `${base}/api/v1/checkout/paylink`,
      method: 'POST',
      headers: auth,
      body,
      requests: uniqueKey('bench'),
    });
    creationRps = create.rps;
    rows.push({ ...create, floor: insertFloor });
    rows.push({ ...create, name: 'POST /checkout/paylink vs the tx floor', floor: txnFloor });
    const jwtFloor = await jwtFloorAgain();
    floors.push(jwtFloor);
    rows.push({
      ...(await m('GET /transactions/{id}', {
        url: `${base}/api/v1/transactions/${s.sampleTransactionId}`,
        headers: auth,
      })),
      floor: jwtFloor,
    });
    const list10k = await m('GET /transactions (10k rows)', {
      url: `${base}/api/v1/transactions`,
      headers: authSmall,
    });
    const list1m = await m(`GET /transactions (${SEED} rows)`, {
      url: `${base}/api/v1/transactions`,
      headers: auth,
    });
    const f10k = await m('GET /transactions?status=success&page_size=50 (10k rows)', {
      url: `${base}/api/v1/transactions?status=success&page_size=50`,
      headers: authSmall,
    });
    const f1m = await m(`GET /transactions?status=success&page_size=50 (${SEED} rows)`, {
      url: `${base}/api/v1/transactions?status=success&page_size=50`,
      headers: auth,
    });
    rows.push(
      { ...list10k, floor: jwtFloor },
      { ...list1m, floor: jwtFloor, p99Base: list10k },
      { ...f10k, floor: jwtFloor },
      { ...f1m, floor: jwtFloor, p99Base: f10k },
    );
    // Last: the spraying scenario locks the bench's IP out of logins.
    rows.push(
      ...(await runLoginScenarios(base, loginEmails, child.pid, CONNECTIONS, Math.min(DURATION, 10))),
    );
    rss = peakRssMb(child.pid);
    printTable(floors, rows);
    console.log(`\nservice peak RSS (VmHWM) over the API bench: ${rss ?? 'n/a'} MB`);
    console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  } finally {
    // let requests of the last run that autocannon abandoned finish before the service stops
    await new Promise((r) => setTimeout(r, 1500));
    await stopChild(child);
    await stopFloor();
    await cleanup();
  }
  return { engine, paymentCreationRps: creationRps, peakRssMb: rss };
}

export const runApiBench = main;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
