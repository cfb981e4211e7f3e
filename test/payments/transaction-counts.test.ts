/**
 * GET /transactions' pagination.total comes from trigger-maintained count deltas
 * (transaction_count_deltas) compacted by a worker. The totals stay exact through inserts, status
 * changes and deletes made by concurrent transactions while the compactor runs, and a rolled-back
 * write leaves no trace in them.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { transactionCountDeltas, transactions } from '../../src/db/schema/index';
import { compactTransactionCounts, countedTotal } from '../../src/modules/payments/transaction-counts.repo';
import { createTestApp, type TestContext } from '../helpers/app';
import { createPaylink, createPaymentWorld, type PaymentWorld } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx?.close());

const STATUSES = ['pending', 'processing', 'success', 'failed'] as const;

/** Inserts `n` transactions for the world's client in one statement (tagged for later updates). */
async function insertRows(n: number, tag: string, status = 'pending') {
  await ctx.db.execute(sql`
    insert into transactions (id, client_id, project_id, user_id, amount, currency, status, provider_status,
                              reconciliation_state, ref_id, checkout_token, expires_at, created_at, updated_at)
    select gen_random_uuid(), ${w.caller.clientId}::uuid, ${w.projectId}::uuid, ${w.userId}::uuid, 10.00, 'EUR',
           ${status}, 'initiated', 'none', 'ref_' || ${tag}::text || '_' || g, 'tok_' || ${tag}::text || '_' || g,
           now() + interval '1 day', now(), now()
      from generate_series(1, ${n}) as g`);
}

async function exactCounts(): Promise<Record<string, number>> {
  const res = await ctx.db.execute(
    sql`select status, count(*)::int as n from transactions where client_id = ${w.caller.clientId}::uuid group by status`,
  );
  return Object.fromEntries(rowsOf<{ status: string; n: number }>(res).map((r) => [r.status, r.n]));
}

async function expectTotalsExact() {
  const exact = await exactCounts();
  const all = Object.values(exact).reduce((a, b) => a + b, 0);
  expect(await countedTotal(ctx.db, w.caller.clientId)).toBe(all);
  for (const s of STATUSES) expect(await countedTotal(ctx.db, w.caller.clientId, s)).toBe(exact[s] ?? 0);
  const list = await ctx.app.inject({ url: '/api/v1/transactions', headers: w.caller.headers });
  expect(list.statusCode).toBe(200);
  expect(list.json().pagination.total).toBe(all);
  const filtered = await ctx.app.inject({
    url: '/api/v1/transactions?status=success',
    headers: w.caller.headers,
  });
  expect(filtered.json().pagination.total).toBe(exact.success ?? 0);
}

describe('transaction totals from counters', () => {
  it('counts payment links created through the API', async () => {
    await createPaylink(ctx, w);
    await createPaylink(ctx, w);
    await expectTotalsExact();
  });

  it('stays exact under concurrent inserts, status changes and deletes while compacting', async () => {
    const writers = Array.from({ length: 8 }, (_, i) =>
      (async () => {
        const tag = `${randomBytes(3).toString('hex')}${i}`;
        for (let round = 0; round < 5; round++) {
          const rtag = `${tag}r${round}`;
          await insertRows(20, rtag);
          const to = STATUSES[(i + round) % STATUSES.length]!;
          await ctx.db.execute(
            sql`update transactions set status = ${to} where ref_id like ${`ref_${rtag}_%`} and ref_id not like ${`ref_${rtag}_1%`}`,
          );
          await ctx.db.execute(sql`delete from transactions where ref_id = ${`ref_${rtag}_1`}`);
        }
      })(),
    );
    const compactor = (async () => {
      for (let k = 0; k < 20; k++) await compactTransactionCounts(ctx.db);
    })();
    await Promise.all([...writers, compactor]);
    await expectTotalsExact();
    await compactTransactionCounts(ctx.db);
    const rows = await ctx.db
      .select()
      .from(transactionCountDeltas)
      .where(eq(transactionCountDeltas.clientId, w.caller.clientId));
    // One row per status after compaction.
    expect(new Set(rows.map((r) => r.status)).size).toBe(rows.length);
    await expectTotalsExact();
  });

  it('a rolled-back write changes no total', async () => {
    const before = await countedTotal(ctx.db, w.caller.clientId);
    await expect(
      ctx.db.transaction(async (tx) => {
        await tx.execute(sql`
          insert into transactions (id, client_id, project_id, user_id, amount, currency, status, provider_status,
                                    reconciliation_state, ref_id, checkout_token, expires_at, created_at, updated_at)
          values (gen_random_uuid(), ${w.caller.clientId}::uuid, ${w.projectId}::uuid, ${w.userId}::uuid, 1, 'EUR',
                  'pending', 'initiated', 'none', 'ref_rollback', 'tok_rollback', now(), now(), now())`);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await countedTotal(ctx.db, w.caller.clientId)).toBe(before);
    const [gone] = await ctx.db
      .select({ id: transactions.id })
      .from(transactions)
      .where(and(eq(transactions.refId, 'ref_rollback'), eq(transactions.clientId, w.caller.clientId)));
    expect(gone).toBeUndefined();
    await expectTotalsExact();
  });
});
