/**
 * Delivery survives a crash: the real service runs as a child process; while deliveries are in
 * flight (a slow receiver) and others are pending, it is killed with SIGKILL, then restarted on the
 * same data. Every event reaches the receiver at least once, none is lost, and a delivery is
 * marked succeeded only when the receiver answered 2xx.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPglite, openPostgres } from '../../src/db/client';
import { accounts, clients } from '../../src/db/schema/index';
import { signToken } from '../../src/modules/auth/sessions/tokens.service';
import { deriveSecrets, encrypt } from '../../src/shared/crypto';
import { createScratchPostgresDatabase, provided, testEngine } from '../helpers/db';
import { freePort, type ServiceProcess, startService } from '../helpers/process';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { signatureMatches } from '../helpers/webhooks';

const JWT = `crash-test-jwt-${randomBytes(16).toString('hex')}`;
const DATA_KEY = randomBytes(32).toString('base64');
const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const EVENTS = 30;

let dataDir: string;
let databaseUrl: string | null = null;
let dropDatabase: (() => Promise<void>) | null = null;
let rx: Receiver;
let token: string;
let service: ServiceProcess | null = null;
/** Answers the receiver gave, per event id. */
const answered = new Map<string, number[]>();
const firstSeen = new Set<string>();
/** Requests the receiver is still holding (answer not sent yet). */
const holding = new Set<string>();

async function openDb(): Promise<Database> {
  return databaseUrl
    ? openPostgres(databaseUrl, { poolSize: 2 })
    : openPglite({ dataDir: path.join(dataDir, 'pgdata') });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-crash-'));
  if (testEngine() === 'postgres') {
    const scratch = await createScratchPostgresDatabase('svc_crash');
    databaseUrl = scratch.url;
    dropDatabase = scratch.drop;
  } else {
    // The suite's migrated template: no initdb and no migrations in WebAssembly before the test starts.
    const template = provided('pgliteTemplateDir');
    if (template) fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
  }
  // Slow answers keep deliveries in flight when the process is killed; some first attempts fail.
  rx = await startReceiver(async (req) => {
    const id = String(req.headers['x-svc-event-id']);
    const first = !firstSeen.has(id);
    firstSeen.add(id);
    const n = Number.parseInt(id.replace(/-/g, '').slice(-4), 16);
    let reply: { status: number; delayMs?: number } = { status: 200 };
    if (first && n % 3 === 0) reply = { status: 200, delayMs: 700 };
    else if (first && n % 3 === 1) reply = { status: 500 };
    answered.set(id, [...(answered.get(id) ?? []), reply.status]);
    if (reply.delayMs) {
      holding.add(id);
      await new Promise((r) => setTimeout(r, reply.delayMs));
      holding.delete(id);
      return { status: reply.status };
    }
    return reply;
  });

  // Seed a client whose main webhook is the receiver, before the service opens the data.
  const db = await openDb();
  await db.migrate();
  const secrets = deriveSecrets(JWT, DATA_KEY);
  const [client] = await db.db
    .insert(clients)
    .values({
      companyName: 'Crash Test Ltd',
      email: `crash-${randomBytes(4).toString('hex')}@example.com`,
      status: 'active',
      webhookUrl: `${rx.url}/hook`,
      webhookEnabled: true,
      webhookSecretEnc: encrypt(secrets.encryptionKey, WEBHOOK_SECRET),
    })
    .returning({ id: clients.id });
  const [account] = await db.db
    .insert(accounts)
    .values({
      clientId: client!.id,
      email: 'owner@crash.example.com',
      fullName: 'Owner',
      role: 'owner',
      passwordHash: 'x',
    })
    .returning({ id: accounts.id });
  await db.close();
  token = (
    await signToken(
      secrets.jwtKey,
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
}, 60_000);

afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  await rx?.close();
  await dropDatabase?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number) {
  return startService(
    {
      SVC_DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      SVC_JWT_SECRET: JWT,
      SVC_DATA_KEY: DATA_KEY,
      LOG_LEVEL: 'warn',
      SVC_WEBHOOK_BACKOFF_SECONDS: '0,0.05,0.05,0.05,0.05,0.05,0.05,0.05',
      SVC_WEBHOOK_TIMEOUT_MS: '1000',
      SVC_WEBHOOK_CONCURRENCY: '4',
      SVC_WORKER_POLL_MS: '50',
    },
    port,
  );
}

interface DeliveryView {
  delivery_id: string;
  event_id: string;
  status: string;
  attempts: number;
}

async function deliveries(baseUrl: string): Promise<DeliveryView[]> {
  const res = await fetch(`${baseUrl}/api/v1/webhooks/deliveries?limit=200`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { deliveries: DeliveryView[] }).deliveries;
}

describe('crash during delivery', () => {
  it('SIGKILL with deliveries in flight and pending, restart: every event arrives, nothing falsely succeeded', async () => {
    const port = await freePort();
    service = await start(port);
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const res = await fetch(`${service.baseUrl}/api/v1/webhooks/subscription/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(202);
      eventIds.push(((await res.json()) as { event_id: string }).event_id);
    }
    // Kill once some deliveries were answered and some are still in flight.
    await rx.waitFor(6, 30_000);
    const until = Date.now() + 20_000;
    while (holding.size === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    const inFlightAtKill = [...holding];
    expect(inFlightAtKill.length).toBeGreaterThan(0);
    service.child.kill('SIGKILL');
    expect(await service.exited).toBeNull();
    const seenAtKill = new Set(rx.requests.map((r) => String(r.headers['x-svc-event-id'])));
    expect(seenAtKill.size).toBeLessThan(EVENTS); // some were still pending at the kill

    service = await start(port);
    const deadline = Date.now() + 60_000;
    let rows: DeliveryView[] = [];
    for (;;) {
      rows = await deliveries(service.baseUrl);
      if (rows.length === EVENTS && rows.every((d) => d.status === 'succeeded')) break;
      if (Date.now() > deadline)
        throw new Error(`not all delivered: ${JSON.stringify(rows.map((d) => d.status))}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    // Every event reached the receiver, signed; none lost.
    const received = new Set(rx.requests.map((r) => String(r.headers['x-svc-event-id'])));
    for (const id of eventIds) expect(received.has(id), id).toBe(true);
    for (const r of rx.requests) expect(signatureMatches(WEBHOOK_SECRET, r)).toBe(true);
    // What was in flight at the kill was sent again after the restart (at least once, not at most once).
    for (const id of inFlightAtKill)
      expect(rx.requests.filter((r) => r.headers['x-svc-event-id'] === id).length, id).toBeGreaterThanOrEqual(
        2,
      );
    // Succeeded only where the receiver answered 2xx; every succeeded attempt records a 2xx.
    for (const d of rows) {
      expect(
        (answered.get(d.event_id) ?? []).some((s) => s >= 200 && s < 300),
        d.event_id,
      ).toBe(true);
      const res = await fetch(`${service.baseUrl}/api/v1/webhooks/deliveries/${d.delivery_id}/attempts`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const { attempts } = (await res.json()) as { attempts: { outcome: string; response_status: number }[] };
      const ok = attempts.filter((a) => a.outcome === 'succeeded');
      expect(ok).toHaveLength(1);
      expect(ok[0]!.response_status).toBeGreaterThanOrEqual(200);
      expect(ok[0]!.response_status).toBeLessThan(300);
    }
    // Graceful stop finishes cleanly.
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 150_000);
});
