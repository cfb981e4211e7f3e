/**
 * Three service processes on one PostgreSQL database behind HAProxy (bench/cluster/harness.ts),
 * driven through the load balancer as a merchant's integration would be: an idempotency-key burst
 * spread over every node, a rolling restart under steady load, and a node killed in the middle of
 * a creation burst. PostgreSQL only (PGlite is one process).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, clusterClient, startCluster } from '../../bench/cluster/harness';
import { M } from '../../src/shared/messages';
import { provided, testEngine } from '../helpers/db';
import { type ReceivedRequest, type Receiver, startReceiver } from '../helpers/receiver';

const onPostgres = testEngine() === 'postgres';
const run = promisify(execFile);

interface Answer {
  status: number;
  node: string | null;
  body: Record<string, unknown>;
}

describe.skipIf(!onPostgres)('three nodes behind a load balancer', () => {
  let cluster: Cluster;
  let api: Awaited<ReturnType<typeof clusterClient>>;
  let db: pg.Client;
  let receiver: Receiver;
  /** Deliveries of one event in flight at once (by its webhook-id), at most. */
  let overlapping = 0;

  beforeAll(async () => {
    const inFlight = new Map<string, number>();
    receiver = await startReceiver(async (req) => {
      const id = String(req.headers['webhook-id']);
      const n = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, n);
      overlapping = Math.max(overlapping, n);
      await new Promise((r) => setTimeout(r, 20));
      inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      return { status: 200 };
    });
    cluster = await startCluster({
      nodes: 3,
      templateDatabase: provided('postgresTemplate'),
      env: { SVC_IDEMPOTENCY_STALE_SECONDS: '10' },
    });
    api = await clusterClient(cluster, { webhookUrl: `${receiver.url}/hooks` });
    db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await cluster?.stop();
    await receiver?.close();
  }, 60_000);

  const paylink = async (key: string, amount = '10.00'): Promise<Answer> => {
    const res = await fetch(`${cluster.url}/api/v1/checkout/paylink`, {
      method: 'POST',
      headers: { ...api.headers, 'x-idempotency-key': key },
      body: JSON.stringify({ amount, currency: 'EUR', project_id: api.projectId, user_id: api.userId }),
    });
    const text = await res.text();
    return { status: res.status, node: res.headers.get('x-svc-node'), body: text ? JSON.parse(text) : {} };
  };

  const transactionCount = async (): Promise<number> =>
    Number((await db.query('select count(*)::int as n from transactions')).rows[0].n);

  it('one idempotency key sent 30 times at once over every node makes one transaction', async () => {
    const before = await transactionCount();
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 30 }, () => paylink(key)));
    // Round robin spread the burst over the three nodes.
    expect(new Set(answers.map((a) => a.node))).toEqual(new Set(['n1', 'n2', 'n3']));
    // One creation; the others replay it (200) or were refused while it was in flight (409).
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of answers) expect([200, 201, 409]).toContain(a.status);
    const ids = new Set(answers.filter((a) => a.status < 300).map((a) => a.body.transaction_id));
    expect(ids.size).toBe(1);
    expect(await transactionCount()).toBe(before + 1);
    // Afterwards every node replays it.
    const again = await Promise.all(Array.from({ length: 3 }, () => paylink(key)));
    expect(again.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(again.map((a) => a.body.transaction_id))).toEqual(ids);
  }, 60_000);

  it('with three worker nodes every event is delivered once and every due timer runs once', async () => {
    const statusEvents = () =>
      receiver.requests.filter((r) => JSON.parse(r.rawBody).type === 'payment.status_changed');
    const before = statusEvents().length;
    const links = await Promise.all(Array.from({ length: 24 }, () => paylink(randomUUID())));
    const ids = links.map((l) => String(l.body.transaction_id));
    const settled = ids.slice(0, 16);
    const expiring = ids.slice(16);
    // Two status changes each for 16 payments, through the sandbox bank's notifications.
    for (const providerStatus of ['processing', 'completed'])
      await Promise.all(
        settled.map(async (id) => {
          const res = await fetch(`${cluster.url}/api/v1/sandbox/transactions/${id}/simulate`, {
            method: 'POST',
            headers: api.headers,
            body: JSON.stringify({ provider_status: providerStatus }),
          });
          expect(res.status, await res.text()).toBe(200);
        }),
      );
    // Eight links whose expiry timers (job rows) all fall due at once: three runners race for them.
    await db.query(
      "update transactions set expires_at = now() - interval '1 second' where id = any($1::uuid[])",
      [expiring],
    );
    const moved = await db.query(
      `update jobs set run_at = now() where kind = 'payments.link_expiry' and status = 'pending'
         and dedupe_key = any($1::text[])`,
      [expiring.map((id) => `transaction:${id}`)],
    );
    expect(moved.rowCount).toBe(expiring.length);
    const expected = settled.length * 2 + expiring.length;
    const deadline = Date.now() + 45_000;
    while (statusEvents().length - before < expected && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_000)); // a duplicate would arrive now
    const events = statusEvents().slice(before);
    const eventIds = events.map((r) => String(r.headers['webhook-id']));
    expect(eventIds.length).toBe(expected);
    expect(new Set(eventIds).size).toBe(expected); // none delivered twice
    expect(overlapping).toBe(1);
    // Each link expired exactly once.
    const expired = await db.query(
      `select transaction_id::text as id, count(*)::int as n from transaction_status_events
        where transaction_id = any($1::uuid[]) and to_status = 'expired' and from_status <> 'expired' group by transaction_id`,
      [expiring],
    );
    expect(expired.rows.map((r) => r.n)).toEqual(expiring.map(() => 1));
    // Every job ran once: none was claimed a second time (the timers' backfill is queued again by
    // every node's start, by design: one run per start).
    const again = await db.query(
      `select kind, attempts, status, last_error from jobs
        where (attempts > 1 or status = 'running') and kind <> 'timers.backfill'`,
    );
    expect(again.rows).toEqual([]);
  }, 90_000);

  /**
   * Steady traffic (creations and reads) until `stop()`, each loop at most one request per `everyMs`
   * (about 60 a second with six loops: a load, without starving the nodes' restarts of CPU on two
   * cores); every answer is kept.
   */
  const steadyLoad = (concurrency: number, everyMs = 100) => {
    let running = true;
    const answers: (Answer & { key?: string })[] = [];
    const errors: string[] = [];
    const loops = Array.from({ length: concurrency }, async (_, n) => {
      while (running) {
        const started = Date.now();
        try {
          if (n % 2 === 0) {
            const key = randomUUID();
            answers.push({ ...(await paylink(key)), key });
          } else {
            const res = await fetch(`${cluster.url}/api/v1/transactions?page_size=5`, {
              headers: api.headers,
            });
            await res.arrayBuffer();
            answers.push({ status: res.status, node: res.headers.get('x-svc-node'), body: {} });
          }
        } catch (err) {
          errors.push(String(err));
        }
        const rest = everyMs - (Date.now() - started);
        if (running && rest > 0) await new Promise((r) => setTimeout(r, rest));
      }
    });
    return {
      answers,
      errors,
      async stop() {
        running = false;
        await Promise.all(loops);
      },
    };
  };

  it('a rolling restart (SIGTERM, then the next node once the previous is ready) fails no request', async () => {
    const load = steadyLoad(6);
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < cluster.nodes.length; i++) {
      const node = cluster.nodes[i]!;
      node.child.kill('SIGTERM');
      // Readiness goes to 503 first: the balancer takes the node out while it still serves.
      await cluster.waitBalancer(i, false);
      expect(await node.exited).toBe(0);
      await cluster.restart(i);
      await cluster.waitBalancer(i, true);
    }
    await new Promise((r) => setTimeout(r, 500));
    await load.stop();
    const failed = load.answers.filter((a) => a.status >= 300);
    expect(load.errors).toEqual([]);
    expect(failed.map((a) => `${a.status} on ${a.node}: ${JSON.stringify(a.body)}`)).toEqual([]);
    expect(load.answers.length).toBeGreaterThan(50);
    // Every node answered after its restart too.
    expect(new Set(load.answers.slice(-30).map((a) => a.node)).size).toBeGreaterThan(1);
  }, 120_000);

  it('nodes of the previous version keep serving while an additive migration is applied', async () => {
    const load = steadyLoad(6);
    await new Promise((r) => setTimeout(r, 300));
    // What an expand step of the next version does (docs/guides/scaling.md, "Migrations during a
    // rolling deploy"): new nullable columns, a new table, an index built without blocking writes.
    // The running nodes name their columns, so none of this reaches them.
    await db.query('alter table transactions add column next_version_note text');
    await db.query('alter table jobs add column next_version_hint text');
    await db.query('create table next_version_things (id uuid primary key, note text)');
    await db.query('create index concurrently next_version_tx_note on transactions (next_version_note)');
    await new Promise((r) => setTimeout(r, 500));
    await load.stop();
    expect(load.errors).toEqual([]);
    expect(
      load.answers.filter((a) => a.status >= 300).map((a) => `${a.status} ${JSON.stringify(a.body)}`),
    ).toEqual([]);
    expect(load.answers.filter((a) => a.status === 201).length).toBeGreaterThan(3);
    // A node restarted afterwards (the previous version again: a rollback) starts on the expanded schema.
    const n = cluster.nodes[2]!;
    n.child.kill('SIGTERM');
    await cluster.waitBalancer(2, false);
    expect(await n.exited).toBe(0);
    await cluster.restart(2);
    await cluster.waitBalancer(2, true);
    expect((await paylink(randomUUID())).status).toBe(201);
  }, 90_000);

  it('a node killed with SIGKILL during a creation burst loses no acknowledged payment, and its delivery lease is taken over', async () => {
    // The main webhook's delivery of one chosen event makes us kill the node that sent it, so the
    // victim dies holding a delivery lease (locked_until: the webhook timeout plus 5 s).
    let victim: number | null = null;
    let target = '';
    const hanging: ReceivedRequest[] = [];
    const normal = receiver.behaviour;
    receiver.behaviour = async (req, index) => {
      if (!target || !req.rawBody.includes(target)) return normal(req, index);
      hanging.push(req);
      if (hanging.length > 1) return normal(req, index);
      victim = await senderNode(req.remotePort);
      cluster.nodes[victim]!.child.kill('SIGKILL');
      return { hangUp: true };
    };
    const load = steadyLoad(8, 0); // a burst: as fast as the nodes answer
    await new Promise((r) => setTimeout(r, 800));
    // One status change during the burst: its delivery to the hanging destination kills its sender.
    const first = load.answers.find((a) => a.status === 201)!;
    target = String(first.body.transaction_id);
    const moved = await fetch(
      `${cluster.url}/api/v1/sandbox/transactions/${first.body.transaction_id}/simulate`,
      {
        method: 'POST',
        headers: api.headers,
        body: JSON.stringify({ provider_status: 'processing' }),
      },
    );
    expect(moved.status).toBe(200);
    await until(() => victim !== null, 20_000);
    const killed = cluster.nodes[victim!]!;
    await killed.exited;
    await cluster.waitBalancer(victim!, false);
    await new Promise((r) => setTimeout(r, 800));
    await load.stop();
    const created = load.answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThan(10);
    // The requests in flight on the killed node were sent again to another node (they carry an
    // idempotency key). One whose key the killed node had claimed but not completed is answered
    // 409 "still being processed" until the claim is stale (SVC_IDEMPOTENCY_STALE_SECONDS, 10 s
    // here); the same request sent again after that is created once.
    expect(load.errors).toEqual([]);
    const inFlight = load.answers.filter(
      (a) => a.status === 409 && a.body.detail === M.idempotencyInProgress,
    );
    expect(
      load.answers
        .filter((a) => a.status >= 300 && !inFlight.includes(a))
        .map((a) => `${a.status} ${a.node} ${JSON.stringify(a.body)}`),
    ).toEqual([]);
    // The lease the killed node held runs out (10 s) and a living node delivers the event again,
    // the same webhook-id; meanwhile the claims of the keys in flight go stale (10 s).
    await until(() => hanging.length >= 2, 40_000);
    receiver.behaviour = normal;
    const [lost, retaken] = hanging;
    expect(retaken!.headers['webhook-id']).toBe(lost!.headers['webhook-id']);
    expect(retaken!.receivedAt - lost!.receivedAt).toBeGreaterThan(5_000);
    // The node that delivered it records the answer just after the receiver saw the request.
    const delivery = async () =>
      (
        await db.query(
          'select status, attempts from webhook_deliveries where event_id = $1 and destination_id is null',
          [lost!.headers['webhook-id']],
        )
      ).rows;
    let rows = await delivery();
    for (let i = 0; i < 100 && rows[0]?.status !== 'succeeded'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await delivery();
    }
    // One recorded attempt: the killed node's was sent but never written (at least once, as documented).
    expect(rows).toEqual([{ status: 'succeeded', attempts: 1 }]);
    for (const a of inFlight) {
      const again = await paylink(a.key!);
      expect([200, 201]).toContain(again.status);
      created.push(again);
    }
    // Every acknowledged creation is there, once.
    const ids = [...new Set(created.map((a) => String(a.body.transaction_id)))];
    const found = await db.query('select id::text from transactions where id = any($1::uuid[])', [ids]);
    expect(found.rows.length).toBe(ids.length);
    // After the kill, only the two living nodes answered.
    const last = load.answers.slice(-20).map((a) => a.node);
    expect(last).not.toContain(killed.name);
    await cluster.restart(victim!);
    await cluster.waitBalancer(victim!, true);
  }, 120_000);

  const until = async (done: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  /** Which node's process holds the connection from `port` (`ss` names the socket's owner). */
  const senderNode = async (port: number): Promise<number> => {
    const { stdout } = await run('ss', ['-tnpH', 'state', 'established', `( sport = :${port} )`]);
    const pid = Number(/pid=(\d+)/.exec(stdout)?.[1]);
    const i = cluster.nodes.findIndex((n) => n.child.pid === pid);
    if (i < 0) throw new Error(`no node sent from port ${port}: ${stdout}`);
    return i;
  };
});

describe.skipIf(!onPostgres)('two nodes through PgBouncer in transaction mode', () => {
  let cluster: Cluster;
  let api: Awaited<ReturnType<typeof clusterClient>>;

  beforeAll(async () => {
    cluster = await startCluster({
      nodes: 2,
      pgbouncer: true,
      templateDatabase: provided('postgresTemplate'),
    });
    api = await clusterClient(cluster);
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('the key burst makes one transaction, and a creation burst succeeds (hot statements unnamed)', async () => {
    const post = async (key: string) => {
      const res = await fetch(`${cluster.url}/api/v1/checkout/paylink`, {
        method: 'POST',
        headers: { ...api.headers, 'x-idempotency-key': key },
        body: JSON.stringify({
          amount: '10.00',
          currency: 'EUR',
          project_id: api.projectId,
          user_id: api.userId,
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const key = randomUUID();
    const burst = await Promise.all(Array.from({ length: 20 }, () => post(key)));
    expect(burst.filter((a) => a.status === 201)).toHaveLength(1);
    for (const a of burst) expect([200, 201, 409]).toContain(a.status);
    expect(new Set(burst.filter((a) => a.status < 300).map((a) => a.body.transaction_id)).size).toBe(1);
    // Many transactions from many client connections over few server connections.
    const many = await Promise.all(Array.from({ length: 60 }, () => post(randomUUID())));
    expect(many.map((a) => a.status).filter((s) => s !== 201)).toEqual([]);
  }, 60_000);
});
