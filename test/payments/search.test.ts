/**
 * GET /transactions?q=: the exact id, a prefix of the reference, the description or the payer's
 * email (case-insensitive), scoped to the client; on PostgreSQL the search is index scans, no
 * sequential scan, on a table of a few thousand rows.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kycUsers, transactions } from '../../src/db/schema/index';
import { transactionSearch } from '../../src/modules/payments/payments.repo';
import { createTestApp, type TestContext } from '../helpers/app';
import { createPaylink, createPaymentWorld, type PaymentWorld } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
let other: PaymentWorld;
let ids: { coffee: string; tea: string; biz: string };
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx);
  other = await createPaymentWorld(ctx);
  await ctx.db.update(kycUsers).set({ email: 'Alice.Payer@Example.com' }).where(eq(kycUsers.id, w.userId));
  ids = {
    coffee: (await createPaylink(ctx, w, { description: 'Coffee beans 1kg' })).transaction_id,
    tea: (
      await createPaylink(ctx, w, {
        description: 'Green_tea 100%',
        user_id: undefined,
        business_customer_id: w.businessCustomerId,
      })
    ).transaction_id,
    biz: '',
  };
  ids.biz = ids.tea;
  await createPaylink(ctx, other, { description: 'Coffee beans 1kg' });
});
afterAll(() => ctx?.close());

/** drizzle's execute answers rows (PGlite) or a result with rows (node-postgres). */
const rowsOf = (r: unknown) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows);

const search = async (q: string, caller = w.caller) => {
  const r = await ctx.app.inject({
    url: `/api/v1/transactions?q=${encodeURIComponent(q)}`,
    headers: caller.headers,
  });
  expect(r.statusCode, r.body).toBe(200);
  const body = r.json() as { transactions: { transaction_id: string }[]; pagination: { total: number } };
  return { ids: body.transactions.map((t) => t.transaction_id), total: body.pagination.total };
};

describe('GET /transactions?q=', () => {
  it('matches the exact id, upper or lower case', async () => {
    expect((await search(ids.coffee)).ids).toEqual([ids.coffee]);
    expect((await search(ids.coffee.toUpperCase())).ids).toEqual([ids.coffee]);
  });

  it('matches a prefix of the description, case-insensitive, wildcards literal', async () => {
    expect(await search('coffee')).toEqual({ ids: [ids.coffee], total: 1 });
    expect((await search('GREEN_TEA 100%')).ids).toEqual([ids.tea]);
    expect((await search('green%')).ids).toEqual([]);
    expect((await search('beans')).ids).toEqual([]); // a prefix, not a substring
  });

  it('matches a prefix of the reference (ref_id)', async () => {
    const [row] = await ctx.db.select().from(transactions).where(eq(transactions.id, ids.coffee));
    expect((await search(row!.refId.slice(0, 12).toUpperCase())).ids).toContain(ids.coffee);
  });

  it("matches the payer's email (a person's or a business customer's)", async () => {
    expect((await search('alice.payer@example')).ids).toEqual([ids.coffee]);
    const [biz] = await ctx.db
      .execute<{ email: string }>(
        sql`select email from business_customers where id = ${w.businessCustomerId}`,
      )
      .then((r) => rowsOf(r) as { email: string }[]);
    expect((await search(biz!.email.toUpperCase())).ids).toEqual([ids.biz]);
  });

  it("never finds another client's payments, and keeps the other filters", async () => {
    expect((await search('coffee', other.caller)).ids).not.toContain(ids.coffee);
    expect((await search(ids.coffee, other.caller)).ids).toEqual([]);
    const r = await ctx.app.inject({
      url: '/api/v1/transactions?q=coffee&status=success',
      headers: w.caller.headers,
    });
    expect(r.json().transactions).toEqual([]);
  });

  it('an empty q is 422 at query.q', async () => {
    const r = await ctx.app.inject({ url: '/api/v1/transactions?q=%20', headers: w.caller.headers });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0].loc).toEqual(['query', 'q']);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL && process.env.TEST_ENGINE !== 'pglite')('plan', () => {
  it('is index scans on a few thousand rows, for every kind of q', async () => {
    await ctx.db.execute(sql`
      insert into transactions (id, client_id, project_id, user_id, amount, currency, description, ref_id, checkout_token, expires_at)
      select gen_random_uuid(), client_id, project_id, null, amount, currency, 'Bulk item ' || g, 'bulk-' || g || '-' || md5(g::text), md5(random()::text), expires_at
        from transactions, generate_series(1, 4000) g where id = ${ids.coffee}`);
    await ctx.db.execute(sql`
      insert into kyc_users (id, client_id, email, first_name)
      select gen_random_uuid(), ${w.caller.clientId}, 'payer' || g || '@example.org', 'P' from generate_series(1, 3000) g`);
    await ctx.db.execute(sql`
      insert into business_customers (id, client_id, company_name, country, email)
      select gen_random_uuid(), ${w.caller.clientId}, 'Company ' || g, 'GB', 'biz' || g || '@example.org' from generate_series(1, 3000) g`);
    await ctx.db.execute(sql`analyze transactions`);
    await ctx.db.execute(sql`analyze kyc_users`);
    await ctx.db.execute(sql`analyze business_customers`);
    for (const q of ['coffee', 'alice.payer', ids.coffee]) {
      const query = ctx.db
        .select()
        .from(transactions)
        .where(and(eq(transactions.clientId, w.caller.clientId), transactionSearch(w.caller.clientId, q)))
        .orderBy(desc(transactions.createdAt), desc(transactions.id))
        .limit(10);
      const res = await ctx.db.execute(sql`explain ${query}`);
      const plan = (rowsOf(res) as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      expect(plan, plan).not.toMatch(/Seq Scan/);
      expect(plan, plan).toMatch(/_search_idx/);
    }
  });
});
