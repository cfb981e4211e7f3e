/**
 * API benchmark (part of `npm run bench`, alone: `npm run bench:api`): starts the service on a fresh database (a temp PGlite data dir, or a fresh
 * database on the server of DATABASE_URL), seeds a client with an activated opco, a project, a
 * user and 100k transactions, then measures with autocannon:
 *   1. POST /checkout/paylink with unique idempotency keys
 *   2. GET /transactions/{id}
 *   3. GET /transactions (first page, newest first, total over 100k rows)
 * and prints req/s and p50/p99 latency. Options (env): BENCH_DURATION (s, default 15),
 * BENCH_CONNECTIONS (default 10), BENCH_TRANSACTIONS (default 100000).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openPglite, openPostgres } from '../src/db/client';
import { accounts, clients, kycUsers, opcos, projects } from '../src/db/schema/index';
import { signToken } from '../src/modules/auth/tokens';

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SEED = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
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
           'ref_bench_' || g, 'tok_bench_' || g, now() + interval '1 day',
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

export async function waitReady(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${base}/readyz`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('service did not become ready');
}

function run(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
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
      database: await openPostgres(env.DATABASE_URL, 4),
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

async function main() {
  const jwtSecret = randomBytes(32).toString('hex');
  const dataKey = randomBytes(32).toString('base64');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_PUBLIC_URL: base,
    SVC_JWT_SECRET: jwtSecret,
    SVC_DATA_KEY: dataKey,
    LOG_LEVEL: 'warn',
  };
  const adminUrl = process.env.DATABASE_URL;
  const { database, cleanup } = await openBenchDatabase(env, 'svc_bench');
  console.log(
    `engine: ${adminUrl ? 'postgres' : 'pglite'}; ${CONNECTIONS} connections, ${DURATION} s per scenario`,
  );
  await database.migrate();
  const s = await seed(database);
  await database.close(); // PGlite: release the data directory for the service

  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitReady(base, child);
    const { token } = await signToken(
      new TextEncoder().encode(jwtSecret),
      {
        sub: s.clientId,
        type: 'client_access',
        actor_type: 'client_user',
        role: 'owner',
        account_id: s.accountId,
        environment: 'sandbox',
      },
      3600,
      new Date(),
    );
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const body = JSON.stringify({
      amount: '49.90',
      currency: 'EUR',
      project_id: s.projectId,
      user_id: s.userId,
      description: 'bench',
    });
    let seq = 0;
    const scenarios: [string, autocannon.Options][] = [
      [
        'POST /checkout/paylink (unique keys)',
        {
          url: `${base}/api/v1/checkout/paylink`,
          method: 'POST',
          headers: auth,
          body,
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                headers: { ...req.headers, 'x-idempotency-key': `bench-${++seq}` },
              }),
            },
          ],
        },
      ],
      [
        'GET /transactions/{id}',
        { url: `${base}/api/v1/transactions/${s.sampleTransactionId}`, headers: auth },
      ],
      ['GET /transactions (page 1, 10 of 100k+)', { url: `${base}/api/v1/transactions`, headers: auth }],
      [
        'GET /transactions?status=success&page_size=50',
        { url: `${base}/api/v1/transactions?status=success&page_size=50`, headers: auth },
      ],
    ];
    const results: { name: string; rps: number; p50: number; p99: number; non2xx: number; errors: number }[] =
      [];
    for (const [name, o] of scenarios) {
      // short warm-up, then the measured run
      await run({ ...o, connections: 2, duration: 2 });
      const r = await run({ ...o, connections: CONNECTIONS, duration: DURATION });
      results.push({
        name,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
      console.log(
        `${name}: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`,
      );
    }
    console.log('\n| Scenario | req/s | p50 (ms) | p99 (ms) | non-2xx | errors |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of results)
      console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`);
    console.log(`\nnode ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
  } finally {
    // let requests of the last run that autocannon abandoned finish before the service stops
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await cleanup();
  }
}

export const runApiBench = main;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
