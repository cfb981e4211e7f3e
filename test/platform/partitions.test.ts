/**
 * Issue 42: the history tables partitioned by month on PostgreSQL (src/db/partitions.ts). A populated
 * database is converted in place (two runners at once), every row stays and the API's statements go
 * on working; the maintenance creates partitions ahead and is a no-op when everything is in place; a
 * row for a month without a partition lands in the default partition; retention drops whole expired
 * months and deletes rows in the month straddling the cutoff. PGlite keeps plain tables.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, rowsOf } from '../../src/db/client';
import {
  HISTORY_TABLES,
  isPartitioned,
  legacyPartitionName,
  listPartitions,
  maintainHistoryPartitions,
  monthStart,
  partitionName,
  uuidBound,
  uuidTime,
} from '../../src/db/partitions';
import { purgeOldActivityLogs } from '../../src/modules/notifications/notifications.worker';
import { sendTestEvent } from '../../src/modules/webhooks/webhooks.service';
import { newId } from '../../src/shared/ids';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestDatabase, testEngine } from '../helpers/db';
import { createPaymentWorld, newKey, type PaymentWorld, paylinkBody } from '../payments/fixtures';

const onPostgres = testEngine() === 'postgres';

/** A UUIDv7-shaped id whose time is `at`. */
function idAt(at: Date): string {
  const b = uuidBound(at).replaceAll('-', '').slice(0, 12);
  const r = randomBytes(10).toString('hex');
  const hex = `${b}7${r.slice(0, 3)}8${r.slice(3, 18)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

async function rows<T>(db: TestContext['db'], text: string): Promise<T[]> {
  return rowsOf<T>(await db.execute(sql.raw(text)));
}

async function counts(db: TestContext['db']): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of HISTORY_TABLES)
    out[t] = (await rows<{ n: number }>(db, `select count(*)::int as n from ${t}`))[0]!.n;
  return out;
}

async function ids(db: TestContext['db']): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of HISTORY_TABLES)
    out[t] = (await rows<{ id: string }>(db, `select id from ${t}`)).map((r) => r.id);
  return out;
}

async function indexNames(db: TestContext['db'], table: string): Promise<string[]> {
  const r = await rows<{ name: string }>(
    db,
    `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = '${table}'::regclass order by 1`,
  );
  return r.map((x) => x.name);
}

describe.skipIf(!onPostgres)('partitioned history on PostgreSQL', () => {
  let database: Database;
  let ctx: TestContext;
  let w: PaymentWorld;
  let deliveriesBefore = 0;
  const now = new Date();
  const create = () =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/paylink',
      headers: { ...w.caller.headers, 'x-idempotency-key': newKey() },
      payload: paylinkBody(w),
    });

  beforeAll(async () => {
    // A copy of the suite's template, unless TEST_PARTITIONED_HISTORY=1 partitioned that one.
    database = await createTestDatabase({ migrationsOnly: process.env.TEST_PARTITIONED_HISTORY === '1' });
    ctx = await createTestApp({ database });
    w = await createPaymentWorld(ctx, { webhookUrl: 'https://hooks.example.com/in' });
    for (let i = 0; i < 4; i++) expect((await create()).statusCode).toBe(201);
    for (let i = 0; i < 3; i++) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/subscription/test',
        headers: w.caller.headers,
      });
      expect(res.statusCode).toBe(202);
    }
    // Attempts of the deliveries, as the delivery worker records them.
    await ctx.db.execute(sql`
      insert into webhook_delivery_attempts (id, delivery_id, client_id, attempt, url, started_at, duration_ms, outcome)
      select d.id, d.id, d.client_id, 1, d.url, now(), 12, 'retrying' from webhook_deliveries d`);
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    await database?.close();
  });

  it('converts a populated database in place, once, with two runners at once, under writes', async () => {
    const before = await counts(ctx.db);
    expect(
      Object.values(before).every((n) => n > 0),
      JSON.stringify(before),
    ).toBe(true);
    const idsBefore = await ids(ctx.db);
    const indexesBefore = await indexNames(ctx.db, 'activity_logs');

    // Writers of events, deliveries and activity entries all along: none may fail (a deadlock with
    // the swap's locks made some fail before the maintenance took its locks in the writers' order).
    let writing = true;
    const failures: string[] = [];
    let written = 0;
    const writer = (async () => {
      while (writing) {
        try {
          await sendTestEvent(ctx.deps, w.caller.clientId, w.caller.accountId);
          written++;
        } catch (err) {
          failures.push(String((err as { cause?: Error }).cause ?? err));
        }
      }
    })();
    const runs = await Promise.all([
      maintainHistoryPartitions(ctx.db, now),
      maintainHistoryPartitions(ctx.db, now),
    ]).finally(() => {
      writing = false;
    });
    await writer;
    expect(failures).toEqual([]);
    expect(written).toBeGreaterThan(0);
    expect([...runs[0]!.converted, ...runs[1]!.converted].sort()).toEqual([...HISTORY_TABLES].sort());
    // Each month's partition made once, by one runner or the other.
    const created = [...runs[0]!.created, ...runs[1]!.created];
    expect(new Set(created).size).toBe(created.length);

    for (const t of HISTORY_TABLES) expect(await isPartitioned(ctx.db, t)).toBe(true);
    // Every row that was there is still there (and the writers' rows came on top).
    const idsAfter = await ids(ctx.db);
    for (const t of HISTORY_TABLES) expect(idsAfter[t]).toEqual(expect.arrayContaining(idsBefore[t]!));
    deliveriesBefore = (await counts(ctx.db)).webhook_deliveries!;
    // The table keeps its index names; the old table's are suffixed.
    expect((await indexNames(ctx.db, 'activity_logs')).sort()).toEqual(indexesBefore.sort());
    // The rows already there stay in the legacy partition, below the first monthly bound.
    const parts = await listPartitions(ctx.db, 'activity_logs');
    expect(parts[0]!.name).toBe(legacyPartitionName('activity_logs'));
    expect(parts.at(-1)!.isDefault).toBe(true);
    expect(uuidTime(parts[0]!.to!).getTime()).toBeGreaterThan(now.getTime());
    // The trigger, the foreign keys and the validated bound came along.
    const fks = await rows<{ name: string; valid: boolean; target: string }>(
      ctx.db,
      `select conname as name, convalidated as valid, confrelid::regclass::text as target from pg_constraint
        where conrelid = 'webhook_delivery_attempts'::regclass and contype = 'f' and conparentid = 0`,
    );
    expect(fks).toEqual([expect.objectContaining({ target: 'webhook_deliveries', valid: true })]);
    await expect(ctx.db.execute(sql`delete from activity_logs`)).rejects.toThrow();
    await expect(
      ctx.db.execute(sql`insert into webhook_delivery_attempts (id, delivery_id, client_id, attempt, url, started_at,
        duration_ms, outcome) values (${newId()}, ${newId()}, ${w.caller.clientId}, 1, 'x', now(), 1, 'failed')`),
    ).rejects.toThrow();
  });

  it('the API reads and writes as before', async () => {
    const res = await create();
    expect(res.statusCode).toBe(201);
    const id = res.json().transaction_id as string;
    const detail = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/transactions/${id}`,
      headers: w.caller.headers,
    });
    expect(detail.statusCode).toBe(200);
    const deliveries = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/webhooks/deliveries?limit=200',
      headers: w.caller.headers,
    });
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json().total).toBe(deliveriesBefore);
    const activity = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/activity-logs',
      headers: w.caller.headers,
    });
    expect(activity.statusCode).toBe(200);
    // The new rows went to this month's partition, not the legacy one.
    const where = await rows<{ part: string }>(
      ctx.db,
      `select tableoid::regclass::text as part from transaction_status_events
        where transaction_id = '${id}'`,
    );
    expect(where.map((r) => r.part)).toEqual(
      where.map(() => expect.stringMatching(/^transaction_status_events_(legacy|p\d{6})$/)),
    );
  });

  it('a lookup by id reads one partition', async () => {
    const [d] = await rows<{ id: string }>(ctx.db, 'select id from webhook_deliveries limit 1');
    const plan = await rows<{ 'QUERY PLAN': string }>(
      ctx.db,
      `explain (costs off) select * from webhook_deliveries where id = '${d!.id}'`,
    );
    const scanned = plan.filter((p) => /Scan/.test(p['QUERY PLAN']));
    expect(scanned).toHaveLength(1);
  });

  it('a second run changes nothing; a later run creates the months ahead', async () => {
    expect(await maintainHistoryPartitions(ctx.db, now)).toEqual({ converted: [], created: [], blocked: [] });
    const later = monthStart(now, 6);
    const r = await maintainHistoryPartitions(ctx.db, later);
    expect(r.converted).toEqual([]);
    expect(r.created).toContain(partitionName('activity_logs', later));
    expect(r.created).toContain(partitionName('webhook_deliveries', monthStart(later, 3)));
  });

  it('a row for a month without a partition lands in the default partition; that month is then reported', async () => {
    const far = monthStart(now, 20);
    const id = idAt(new Date(far.getTime() + 3_600_000));
    await ctx.db.execute(sql`insert into activity_logs (id, client_id, occurred_at, action, actor_type)
      values (${id}, ${w.caller.clientId}, ${new Date('2099-01-01').toISOString()}::timestamptz, 'test.far', 'system')`);
    const [at] = await rows<{ part: string }>(
      ctx.db,
      `select tableoid::regclass::text as part from activity_logs where id = '${id}'`,
    );
    expect(at!.part).toBe('activity_logs_default');
    const r = await maintainHistoryPartitions(ctx.db, far);
    expect(r.blocked).toEqual([partitionName('activity_logs', far)]);
    expect(r.created).toContain(partitionName('activity_logs', monthStart(far, 1)));
  });

  it('retention drops whole expired months and deletes the old rows of the month straddling the cutoff', async () => {
    // Two months with entries of our own: one wholly expired, one with an entry still kept.
    const m1 = monthStart(now, 2);
    const m2 = monthStart(now, 3);
    const at = (m: Date) => new Date(m.getTime() + 86_400_000);
    const old = new Date('2020-01-01T00:00:00Z');
    const kept = new Date('2098-01-01T00:00:00Z');
    const entry = (id: string, occurred: Date) =>
      ctx.db.execute(sql`insert into activity_logs (id, client_id, occurred_at, action, actor_type)
        values (${id}, ${w.caller.clientId}, ${occurred.toISOString()}::timestamptz, 'test.retention', 'system')`);
    for (let i = 0; i < 3; i++) await entry(idAt(at(m1)), old);
    await entry(idAt(at(m2)), old);
    const keptId = idAt(at(m2));
    await entry(keptId, kept);

    // Retention as seen a year and a few days after the end of m2: every month up to m2 is past its bound.
    const cutoff = new Date(monthStart(m2, 1).getTime() + 2 * 86_400_000);
    ctx.clock.set(new Date(cutoff.getTime() + ctx.config.activityLogRetentionDays * 86_400_000));
    const total = (await rows<{ n: number }>(ctx.db, 'select count(*)::int as n from activity_logs'))[0]!.n;
    const survivors = (
      await rows<{ n: number }>(
        ctx.db,
        `select count(*)::int as n from activity_logs where occurred_at >= '${cutoff.toISOString()}'`,
      )
    )[0]!.n;
    let removed = 0;
    for (let n = await purgeOldActivityLogs(ctx.deps); n > 0; n = await purgeOldActivityLogs(ctx.deps))
      removed += n;
    expect(removed).toBe(total - survivors);

    const names = (await listPartitions(ctx.db, 'activity_logs')).map((p) => p.name);
    expect(names).not.toContain(legacyPartitionName('activity_logs'));
    expect(names).not.toContain(partitionName('activity_logs', m1));
    expect(names).toContain(partitionName('activity_logs', m2));
    const left = await rows<{ id: string }>(
      ctx.db,
      `select id from activity_logs where action = 'test.retention'`,
    );
    expect(left.map((r) => r.id)).toEqual([keptId]);
    // Other tables are untouched by the activity log's retention.
    expect(await isPartitioned(ctx.db, 'webhook_deliveries')).toBe(true);
  });
});

describe.skipIf(onPostgres)('PGlite', () => {
  it('keeps plain tables (the maintenance runs on PostgreSQL only)', async () => {
    const ctx = await createTestApp();
    try {
      for (const t of HISTORY_TABLES) expect(await isPartitioned(ctx.db, t)).toBe(false);
      // The activity log's retention is the row sweep alone there.
      expect(await purgeOldActivityLogs(ctx.deps)).toBe(0);
    } finally {
      await ctx.close();
    }
  });
});
