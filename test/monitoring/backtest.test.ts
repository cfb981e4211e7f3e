/**
 * POST /monitoring/policy/backtest replays a candidate policy over the last 90 days: counts per
 * decision, the records whose decision would change, history rules as of each record; nothing is
 * stored and no event is sent.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, putPolicy, rule, submit } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const count = async (table: string) =>
  rowsOf<{ n: number }>(
    await ctx.db.execute(
      sql`select count(*)::int as n from ${sql.raw(table)} where client_id = ${owner.clientId}::uuid`,
    ),
  )[0]!.n;

describe('policy backtest', () => {
  it('replays the candidate policy over the last 90 days without storing anything', async () => {
    const at = (h: number) => new Date(ctx.clock.now().getTime() - h * 3_600_000).toISOString();
    const c = { customer: { external_id: 'bt-1', name: 'Backtest Customer' } };
    const a = await submit(ctx, owner, { ...c, occurred_at: at(3), client_reference: 'bt-a' });
    const b = await submit(ctx, owner, {
      ...c,
      occurred_at: at(2),
      client_reference: 'bt-b',
      payment_method: 'cash',
    });
    const d = await submit(ctx, owner, { ...c, occurred_at: at(1), client_reference: 'bt-c' });
    const old = await submit(ctx, owner, { client_reference: 'bt-old', payment_method: 'cash' });
    await ctx.db.execute(
      sql`update monitored_transactions set created_at = created_at - interval '91 days' where id = ${old.monitored_transaction_id}::uuid`,
    );
    expect([a, b, d].map((t) => t.decision)).toEqual(['APPROVED', 'APPROVED', 'APPROVED']);
    const events = await count('events');
    const policy = (await api(ctx)('GET', '/monitoring/policy', owner)).json();

    const res = await api(ctx)('POST', '/monitoring/policy/backtest', owner, {
      policy: {
        rules: [
          rule('cash', 'payment_method_in', { methods: ['cash'] }, { action: 'decline' }),
          // The third of this customer's transactions within 24 hours, as of each record.
          rule('burst', 'velocity_count', { count: 2, window_hours: 24 }),
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      evaluated: 3,
      truncated: false,
      current_counts: { APPROVED: 3, IN_REVIEW: 0, DECLINED: 0, AWAITING_USER: 0 },
      counts: { APPROVED: 1, IN_REVIEW: 1, DECLINED: 1, AWAITING_USER: 0 },
    });
    expect(body.changed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          client_reference: 'bt-b',
          current_decision: 'APPROVED',
          decision: 'DECLINED',
        }),
        expect.objectContaining({
          client_reference: 'bt-c',
          decision: 'IN_REVIEW',
          decision_reason: "Rule 'burst' (Rule burst): review",
        }),
      ]),
    );
    expect(body.changed).toHaveLength(2);
    // Nothing stored, nothing sent.
    expect(await count('events')).toBe(events);
    expect((await api(ctx)('GET', '/monitoring/policy', owner)).json()).toEqual(policy);
    const stored = (
      await api(ctx)('GET', `/monitoring/transactions/${b.monitored_transaction_id}`, owner)
    ).json();
    expect(stored.decision).toBe('APPROVED');
  });

  it('needs monitoring.read', async () => {
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    const res = await api(ctx)('POST', '/monitoring/policy/backtest', dev, { policy: { rules: [] } });
    expect(res.statusCode).toBe(403);
    await putPolicy(ctx, owner, { rules: [] });
  });
});
