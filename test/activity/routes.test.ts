import { randomUUID } from 'node:crypto';
/**
 * Activity-log routes (docs/guides/activity-logs.md): the counter list with every filter, detail,
 * export (CSV and JSONL) equal to the list for the same filters, limits, cross-client 404, the
 * staff list, denials logged, the append-only trigger and the retention job.
 */
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { EXPORT_MAX_ROWS, exportActivityLogs } from '../../src/modules/activity/activity.service';
import { recordActivity } from '../../src/modules/activity/activity-writer.service';
import { purgeOldActivityLogs } from '../../src/modules/notifications/notifications.worker';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { staffHeaders } from '../org/fixtures';

let ctx: TestContext;
let owner: TestCaller;
let other: TestCaller;

const get = (url: string, headers: Record<string, string>) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });

async function seed(clientId: string, n: number, base: Date, action = (i: number) => `thing.v${i % 3}`) {
  for (let i = 0; i < n; i++) {
    await recordActivity(ctx.db, {
      clientId,
      action: action(i),
      at: new Date(base.getTime() + i * 60_000),
      outcome: i % 4 === 0 ? 'failure' : 'success',
      target: {
        type: i % 2 ? 'project' : 'opco',
        id: `t${i}`,
        label: i === 5 ? 'Needle =SUM(A1)' : `label ${i}`,
      },
      changes: { name: { from: `a${i}`, to: `b${i}` }, api_secret: { from: 'x', to: 'y' } },
      metadata: { i, password: 'hunter2' },
    });
  }
}

async function recordActivityAt(clientId: string, label: string) {
  const id = `f-${Math.random().toString(36).slice(2)}`;
  await recordActivity(ctx.db, {
    clientId,
    action: 'thing.formula',
    at: new Date('2026-01-01T00:00:00Z'),
    target: { type: 'opco', id, label },
  });
  return id;
}

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  other = await createTestClient(ctx);
  await seed(owner.clientId, 12, new Date('2026-01-10T00:00:00Z'));
  await seed(other.clientId, 3, new Date('2026-01-10T00:00:00Z'));
});
afterAll(() => ctx.close());

describe('GET /activity-logs', () => {
  it('answers the counter envelope, newest first, with redacted secrets', async () => {
    const res = await get('/activity-logs?page_size=5', owner.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ records: 5, page: 1, page_size: 5, total: 12, total_pages: 3 });
    expect(body.activity_logs.map((e: { target: { id: string } }) => e.target.id)).toEqual([
      't11',
      't10',
      't9',
      't8',
      't7',
    ]);
    const e = body.activity_logs[0];
    expect(e.actor).toEqual({
      type: 'system',
      account_id: null,
      email: null,
      credential_id: null,
      credential_label: null,
    });
    expect(e.changes).toEqual({
      name: { from: 'a11', to: 'b11' },
      api_secret: { from: '[redacted]', to: '[redacted]' },
    });
    expect(e.metadata).toEqual({ i: 11, password: '[redacted]' });
    expect(JSON.stringify(body)).not.toContain('hunter2');
    const last = (await get('/activity-logs?page_size=5&page=3', owner.headers)).json();
    expect(last).toMatchObject({ records: 2, total: 12 });
  });

  it('filters by action prefix, outcome, target, q and the date range', async () => {
    const q = async (s: string) => (await get(`/activity-logs?page_size=200&${s}`, owner.headers)).json();
    expect((await q('action=thing.v1')).total).toBe(4);
    expect((await q('action=thing.')).total).toBe(12);
    expect((await q('action=thing%25')).total).toBe(0);
    expect((await q('outcome=failure')).total).toBe(3);
    expect((await q('target_type=project&target_id=t3')).activity_logs[0].target.label).toBe('label 3');
    expect((await q('q=needle')).total).toBe(1);
    expect((await q('actor_type=client_user')).total).toBe(0);
    const ranged = await q('from=2026-01-10T00:02:00Z&to=2026-01-10T00:05:00Z');
    expect(ranged.activity_logs.map((e: { target: { id: string } }) => e.target.id)).toEqual([
      't4',
      't3',
      't2',
    ]);
    const empty = await q('action=nothing.');
    expect(empty).toEqual({
      activity_logs: [],
      records: 0,
      page: 1,
      page_size: 200,
      total: 0,
      total_pages: 0,
    });
  });

  it('page_size above 200 is 422; a blank q is 422', async () => {
    const res = await get('/activity-logs?page_size=201', owner.headers);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['query', 'page_size']);
    const blank = await get('/activity-logs?q=%20%20', owner.headers);
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['query', 'q']);
  });

  it('detail; another client’s entry is 404', async () => {
    const list = (await get('/activity-logs?page_size=1', owner.headers)).json();
    const id = list.activity_logs[0].activity_id;
    const one = await get(`/activity-logs/${id}`, owner.headers);
    expect(one.json()).toEqual(list.activity_logs[0]);
    const foreign = await get(`/activity-logs/${id}`, other.headers);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Activity log entry not found' });
  });

  it('is for owners only; a denied request is itself logged as a failure', async () => {
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const res = await get('/activity-logs', ops.headers);
    expect(res.statusCode).toBe(403);
    const denied = (
      await get(`/activity-logs?action=permission.denied&actor_account_id=${ops.accountId}`, owner.headers)
    ).json();
    expect(denied.total).toBe(1);
    expect(denied.activity_logs[0]).toMatchObject({
      outcome: 'failure',
      actor: { type: 'client_user', account_id: ops.accountId },
      target: { type: 'route', id: 'GET /api/v1/activity-logs' },
      request: { method: 'GET', path: '/api/v1/activity-logs' },
      metadata: { permission: 'activity.read', reason: 'Insufficient permissions for this action' },
    });
  });

  it('a denied request is logged with the route pattern, never the ids the caller sent', async () => {
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const probe = randomUUID();
    const res = await get(`/activity-logs/${probe}`, ops.headers);
    expect(res.statusCode).toBe(403);
    const denied = (
      await get(`/activity-logs?action=permission.denied&actor_account_id=${ops.accountId}`, owner.headers)
    ).json();
    expect(denied.activity_logs[0]).toMatchObject({
      target: { type: 'route', id: 'GET /api/v1/activity-logs/:activity_id' },
      request: { method: 'GET', path: '/api/v1/activity-logs/:activity_id' },
    });
    expect(JSON.stringify(denied.activity_logs[0])).not.toContain(probe);
  });
});

describe('GET /activity-logs/export', () => {
  const filters = ['', 'action=thing.v2', 'outcome=success&from=2026-01-10T00:03:00Z', 'q=needle'];

  it('JSONL holds exactly the list’s entries for the same filters', async () => {
    for (const f of filters) {
      const list = (await get(`/activity-logs?page_size=200&${f}`, owner.headers)).json();
      const res = await get(`/activity-logs/export?format=jsonl&${f}`, owner.headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/x-ndjson');
      const lines = res.body
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(lines).toEqual(list.activity_logs);
    }
  });

  it('CSV holds the same entries, formula cells defused', async () => {
    for (const f of filters) {
      const list = (await get(`/activity-logs?page_size=200&${f}`, owner.headers)).json();
      const res = await get(`/activity-logs/export?format=csv&${f}`, owner.headers);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      const rows = parse(res.body, { columns: true }) as Record<string, string>[];
      expect(rows.map((r) => r.activity_id)).toEqual(
        list.activity_logs.map((e: { activity_id: string }) => e.activity_id),
      );
      for (const [i, r] of rows.entries()) {
        const e = list.activity_logs[i];
        expect(r.action).toBe(e.action);
        expect(r.changes === '' ? null : JSON.parse(r.changes!)).toEqual(e.changes);
        expect(JSON.parse(r.metadata!)).toEqual(e.metadata);
        expect(r.actor_type).toBe(e.actor.type);
        expect(r.occurred_at).toBe(e.occurred_at);
      }
    }
    const needle = parse((await get('/activity-logs/export?format=csv&q=needle', owner.headers)).body, {
      columns: true,
    }) as Record<string, string>[];
    expect(needle[0]!.target_label).toBe('Needle =SUM(A1)');
    const formula = await recordActivityAt(owner.clientId, '=HYPERLINK("x")');
    const rows = parse(
      (await get(`/activity-logs/export?format=csv&target_id=${formula}`, owner.headers)).body,
      {
        columns: true,
      },
    ) as Record<string, string>[];
    expect(rows[0]!.target_label).toBe(`'=HYPERLINK("x")`);
  });

  it('streams more than one batch in order; above the cap the export is refused before streaming', async () => {
    const big = await createTestClient(ctx);
    await ctx.db.execute(sql`
      insert into activity_logs (id, client_id, occurred_at, action, outcome, actor_type, metadata)
      select gen_random_uuid(), ${big.clientId}::uuid,
             '2025-06-01T00:00:00Z'::timestamptz + (g || ' seconds')::interval, 'bulk.row', 'success', 'system', '{}'::jsonb
        from generate_series(1, 2600) g`);
    // The route's cap is 100,000 (EXPORT_MAX_ROWS); the same code path with a cap of 2,599 here.
    await expect(exportActivityLogs(ctx.deps, big.clientId, {}, 'jsonl', 2599)).rejects.toMatchObject({
      statusCode: 400,
      detail: 'Narrow the filters to export at most 100000 entries',
    });
    expect(EXPORT_MAX_ROWS).toBe(100_000);
    const res = await get('/activity-logs/export?format=jsonl&to=2025-06-01T00:41:41Z', big.headers);
    const lines = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2500);
    expect(lines[0].occurred_at).toBe('2025-06-01T00:41:40.000Z');
    expect(lines[2499].occurred_at).toBe('2025-06-01T00:00:01.000Z');
    const list = (
      await get('/activity-logs?page_size=200&page=13&to=2025-06-01T00:41:41Z', big.headers)
    ).json();
    expect(lines.slice(2400, 2500)).toEqual(list.activity_logs);
  });

  it('format is required', async () => {
    const res = await get('/activity-logs/export', owner.headers);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['query', 'format']);
  });
});

describe('staff and retention', () => {
  it('staff list a client’s entries with the same filters; an unknown client is 404', async () => {
    const staff = (await staffHeaders(ctx)).headers;
    const res = await get(`/admin/activity-logs?client_id=${owner.clientId}&action=thing.v0`, staff);
    expect(res.json()).toMatchObject({ total: 4, records: 4 });
    const unknown = await get(`/admin/activity-logs?client_id=${crypto.randomUUID()}`, staff);
    expect(unknown.statusCode).toBe(404);
    expect((await get(`/admin/activity-logs?client_id=${owner.clientId}`, owner.headers)).statusCode).toBe(
      401,
    );
  });

  it('UPDATE and DELETE are refused; only the retention job deletes, and only old entries', async () => {
    await expect(ctx.db.execute(sql`update activity_logs set action = 'forged'`)).rejects.toThrow();
    await expect(
      ctx.db.execute(sql`delete from activity_logs where client_id = ${owner.clientId}::uuid`),
    ).rejects.toThrow();
    const count = async () =>
      Number(
        rowsOf<{ n: number }>(
          await ctx.db.execute(
            sql`select count(*)::int as n from activity_logs where client_id = ${owner.clientId}::uuid`,
          ),
        )[0]!.n,
      );
    const before = await count();
    await recordActivity(ctx.db, {
      clientId: owner.clientId,
      action: 'ancient.entry',
      at: new Date('2024-12-01T00:00:00Z'),
    });
    expect(await count()).toBe(before + 1);
    // The clock is 2026-01-15; 365 days back is 2025-01-15: only the ancient entry (and older bulk rows: none) go.
    const deleted = await purgeOldActivityLogs(ctx.deps);
    expect(deleted).toBe(1);
    expect(await count()).toBe(before);
  });
});
