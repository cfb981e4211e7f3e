/**
 * The evaluation order and every row of the decision table, with reviews and notes, the sanctions
 * allowlist, `monitoring.transaction.status_changed` at a real receiver (the first decision
 * included), notifications and activity entries; plus the repeat/409 rules and cross-client 404s.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { activityLogs, notifications } from '../../src/db/schema/index';
import { expireDueRemediations } from '../../src/modules/monitoring/reviews.transitions';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook } from '../helpers/webhooks';
import {
  api,
  createUser,
  type Json,
  type MonitoredTx,
  putPolicy,
  rule,
  submit,
  testTx,
  txBody,
} from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;
let other: TestCaller;
let rx: Receiver;
let dispatcher: DeliveryDispatcher;

const REVIEW = rule('cash', 'payment_method_in', { methods: ['cash'] });
const AWAIT = rule(
  'sof',
  'payment_method_in',
  { methods: ['crypto'] },
  {
    action: 'require_user',
    remediation_type: 'source_of_funds',
  },
);

beforeAll(async () => {
  rx = await startReceiver();
  ctx = await createTestApp();
  dispatcher = createDeliveryDispatcher(ctx.deps);
  call = api(ctx);
  owner = await createTestClient(ctx);
  other = await createTestClient(ctx);
  await setMainWebhook(ctx, owner.clientId, `${rx.url}/hooks`);
  await putPolicy(ctx, owner, { rules: [REVIEW, AWAIT] });
});
afterAll(async () => {
  await dispatcher?.close();
  await ctx?.close();
  await rx?.close();
});

const review = (id: string, body: Json, caller: TestCaller = owner) =>
  call('POST', `/monitoring/transactions/${id}/review`, caller, body);
const get = async (id: string) =>
  (await call('GET', `/monitoring/transactions/${id}`, owner)).json() as MonitoredTx;

async function eventsOf(id: string) {
  await dispatcher.drain();
  // Deliveries run concurrently (several in flight per URL), so arrival order is not emission
  // order; event ids are UUIDv7, monotonic within the process, so they give emission order.
  const eventId = (r: { headers: Record<string, unknown> }) => String(r.headers['x-svc-event-id']);
  return rx
    .on('/hooks')
    .sort((a, b) => (eventId(a) < eventId(b) ? -1 : eventId(a) > eventId(b) ? 1 : 0))
    .map((r) => JSON.parse(r.rawBody) as { type: string; data: Json })
    .filter(
      (e) => e.type === 'monitoring.transaction.status_changed' && e.data.monitored_transaction_id === id,
    )
    .map((e) => e.data);
}

describe('evaluation order (POST /monitoring/policy/test)', () => {
  const p = (rules: Json[], extra: Json = {}) => ({ rules, review_score: 50, decline_score: 100, ...extra });
  const scoreRule = (id: string, score: number) =>
    rule(id, 'payment_method_in', { methods: ['bank_transfer'] }, { action: 'score', score });
  const decline = rule('dec', 'payment_method_in', { methods: ['bank_transfer'] }, { action: 'decline' });
  const reviewAll = rule('rev', 'payment_method_in', { methods: ['bank_transfer'] }, { action: 'review' });
  const awaitAll = rule(
    'usr',
    'payment_method_in',
    { methods: ['bank_transfer'] },
    {
      action: 'require_user',
      remediation_type: 'source_of_funds',
    },
  );
  const sanctioned = { counterparty: { name: 'Ivan Sanctioned' } };

  it('1. a sanctions match wins, with the policy sanctions action', async () => {
    const r = await testTx(ctx, owner, sanctioned, p([decline, awaitAll]));
    expect(r).toMatchObject({ decision: 'IN_REVIEW', sanctions_hit: true });
    expect(r.decision_reason).toBe('Sanctions match: Ivan Sanctioned (Sandbox sanctions list)');
    const d = await testTx(ctx, owner, sanctioned, p([], { sanctions: { action: 'decline' } }));
    expect(d).toMatchObject({ decision: 'DECLINED', sanctions_hit: true });
    const off = await testTx(ctx, owner, sanctioned, p([], { sanctions: { enabled: false } }));
    expect(off).toMatchObject({ decision: 'APPROVED', sanctions_hit: false });
  });

  it('2. a decline rule or the decline score', async () => {
    expect(await testTx(ctx, owner, {}, p([awaitAll, reviewAll, decline]))).toMatchObject({
      decision: 'DECLINED',
      decision_reason: "Rule 'dec' (Rule dec): decline",
    });
    expect(await testTx(ctx, owner, {}, p([awaitAll, scoreRule('a', 60), scoreRule('b', 40)]))).toMatchObject(
      {
        decision: 'DECLINED',
        score: 100,
        decision_reason: 'Score 100 reached decline_score 100',
      },
    );
  });

  it('3. a require_user rule before review', async () => {
    expect(await testTx(ctx, owner, {}, p([reviewAll, awaitAll, scoreRule('a', 60)]))).toMatchObject({
      decision: 'AWAITING_USER',
      decision_reason: "Rule 'usr' (Rule usr): require_user",
    });
  });

  it('4. a review rule or the review score, 5. otherwise approved', async () => {
    expect(await testTx(ctx, owner, {}, p([scoreRule('a', 10), reviewAll]))).toMatchObject({
      decision: 'IN_REVIEW',
      score: 10,
    });
    expect(await testTx(ctx, owner, {}, p([scoreRule('a', 30), scoreRule('b', 20)]))).toMatchObject({
      decision: 'IN_REVIEW',
      decision_reason: 'Score 50 reached review_score 50',
    });
    expect(await testTx(ctx, owner, {}, p([scoreRule('a', 49)]))).toMatchObject({
      decision: 'APPROVED',
      decision_reason: 'Score 49 below review_score 50',
    });
    expect(await testTx(ctx, owner, {}, p([]))).toMatchObject({ decision: 'APPROVED', rule_hits: [] });
  });

  it('uses the current policy by default and stores nothing', async () => {
    const before = rowsOf<{ n: number }>(
      await ctx.db.execute(sql`select count(*)::int as n from monitored_transactions`),
    )[0]!.n;
    expect((await testTx(ctx, owner, { payment_method: 'cash' })).decision).toBe('IN_REVIEW');
    const after = rowsOf<{ n: number }>(
      await ctx.db.execute(sql`select count(*)::int as n from monitored_transactions`),
    )[0]!.n;
    expect(after).toBe(before);
  });

  it('sandbox client_reference prefixes force the decision', async () => {
    for (const [prefix, decision] of [
      ['sim_approve_', 'APPROVED'],
      ['sim_review_', 'IN_REVIEW'],
      ['sim_decline_', 'DECLINED'],
      ['sim_await_', 'AWAITING_USER'],
    ]) {
      const t = await submit(ctx, owner, {
        client_reference: `${prefix}${Date.now()}`,
        payment_method: 'cash',
      });
      expect(t).toMatchObject({ decision, decision_reason: 'Sandbox forced outcome' });
    }
  });
});

describe('the decision table', () => {
  it('(none) -> APPROVED, with the first event (previous_decision NONE)', async () => {
    const t = await submit(ctx, owner, {});
    expect(t).toMatchObject({
      decision: 'APPROVED',
      remediation: null,
      remediation_url: null,
      policy_version: 1,
    });
    expect(await eventsOf(t.monitored_transaction_id)).toEqual([
      {
        monitored_transaction_id: t.monitored_transaction_id,
        client_reference: t.client_reference,
        previous_decision: 'NONE',
        decision: 'APPROVED',
        decision_reason: 'No rule matched',
        sanctions_hit: false,
        remediation_url: null,
        remediation_status: null,
      },
    ]);
    const r = await review(t.monitored_transaction_id, { decision: 'DECLINED', note: 'late doubt' });
    expect(r.json()).toEqual({ detail: 'Monitored transaction already has a final decision' });
  });

  it('IN_REVIEW -> APPROVED and -> DECLINED by review, with notes, notifications and activity', async () => {
    const a = await submit(ctx, owner, { payment_method: 'cash' });
    expect(a.decision).toBe('IN_REVIEW');
    const toAwait = await review(a.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      note: 'x',
      remediation_type: 'source_of_funds',
    });
    expect(toAwait.statusCode).toBe(200);
    const back = await review(a.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      note: 'again',
      remediation_type: 'source_of_funds',
    });
    expect(back.json()).toEqual({ detail: 'Decision must differ from the current decision' });
    const b = await submit(ctx, owner, { payment_method: 'cash' });
    const ok = await review(b.monitored_transaction_id, { decision: 'APPROVED', note: 'Known customer' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ decision: 'APPROVED', decision_reason: 'Review: Known customer' });
    expect(ok.json().reviews).toEqual([
      expect.objectContaining({
        decision: 'APPROVED',
        note: 'Known customer',
        actor_type: 'client_user',
        actor_account_id: owner.accountId,
      }),
    ]);
    const c = await submit(ctx, owner, { payment_method: 'cash' });
    expect(
      (await review(c.monitored_transaction_id, { decision: 'DECLINED', note: 'Fraud' })).json().decision,
    ).toBe('DECLINED');
    expect(
      (await eventsOf(b.monitored_transaction_id)).map((e) => [e.previous_decision, e.decision]),
    ).toEqual([
      ['NONE', 'IN_REVIEW'],
      ['IN_REVIEW', 'APPROVED'],
    ]);
    const notes = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, owner.clientId), eq(notifications.category, 'monitoring')));
    expect(notes.some((n) => n.title.includes(b.client_reference))).toBe(true);
    const acts = await ctx.db.select().from(activityLogs).where(eq(activityLogs.clientId, owner.clientId));
    expect(acts.map((x) => x.action)).toEqual(
      expect.arrayContaining([
        'monitoring.transaction_submitted',
        'monitoring.decision_reviewed',
        'monitoring.policy_updated',
      ]),
    );
    // Note is required.
    const d = await submit(ctx, owner, { payment_method: 'cash' });
    const noNote = await review(d.monitored_transaction_id, { decision: 'APPROVED' });
    expect(noNote.statusCode).toBe(422);
    // AWAITING_USER needs remediation_type.
    const noType = await review(d.monitored_transaction_id, { decision: 'AWAITING_USER', note: 'n' });
    expect(noType.json().detail[0].loc).toEqual(['body', 'remediation_type']);
    const idv = await review(d.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      note: 'n',
      remediation_type: 'identity_reverification',
    });
    expect(idv.statusCode).toBe(422);
  });

  it('IN_REVIEW -> AWAITING_USER -> IN_REVIEW (submitted) -> APPROVED', async () => {
    const t = await submit(ctx, owner, { payment_method: 'cash' });
    const r = await review(t.monitored_transaction_id, {
      decision: 'AWAITING_USER',
      note: 'Ask for source of funds',
      remediation_type: 'source_of_funds',
    });
    const aw = r.json() as MonitoredTx;
    expect(aw).toMatchObject({ decision: 'AWAITING_USER', remediation_status: 'pending' });
    expect(aw.remediation_url).toMatch(new RegExp(`^${ctx.config.publicUrl}/remediate/[A-Za-z0-9_-]{43}$`));
    const sim = await call(
      'POST',
      `/sandbox/monitoring/transactions/${t.monitored_transaction_id}/simulate`,
      owner,
      {
        action: 'remediation_submitted',
      },
    );
    expect(sim.json()).toMatchObject({
      decision: 'IN_REVIEW',
      remediation_status: 'submitted',
      remediation_url: null,
    });
    expect(sim.json().remediation).toMatchObject({ type: 'source_of_funds', status: 'submitted' });
    await review(t.monitored_transaction_id, { decision: 'APPROVED', note: 'Documents fine' });
    const final = await get(t.monitored_transaction_id);
    expect(final.decision).toBe('APPROVED');
    expect(final.reviews.map((x) => x.note)).toEqual(['Ask for source of funds', 'Documents fine']);
    const evs = await eventsOf(t.monitored_transaction_id);
    expect(evs.map((e) => [e.previous_decision, e.decision, e.remediation_status])).toEqual([
      ['NONE', 'IN_REVIEW', null],
      ['IN_REVIEW', 'AWAITING_USER', 'pending'],
      ['AWAITING_USER', 'IN_REVIEW', 'submitted'],
      ['IN_REVIEW', 'APPROVED', 'submitted'],
    ]);
    expect(evs[1]!.remediation_url).toBe(aw.remediation_url);
  });

  it('(none) -> AWAITING_USER issues the remediation; TTL -> on_remediation_expiry', async () => {
    const t = await submit(ctx, owner, { payment_method: 'crypto' });
    expect(t).toMatchObject({ decision: 'AWAITING_USER', remediation_status: 'pending' });
    expect(t.remediation).toMatchObject({ type: 'source_of_funds', status: 'pending' });
    expect((await eventsOf(t.monitored_transaction_id))[0]).toMatchObject({
      previous_decision: 'NONE',
      decision: 'AWAITING_USER',
      remediation_status: 'pending',
      remediation_url: t.remediation_url,
    });
    // Not due yet.
    expect(await expireDueRemediations(ctx.deps)).toBe(0);
    ctx.clock.advance(72 * 3_600_000 + 1000);
    expect(await expireDueRemediations(ctx.deps)).toBeGreaterThanOrEqual(1);
    const row = rowsOf<{ decision: string; remediation_status: string }>(
      await ctx.db.execute(
        sql`select decision, remediation_status from monitored_transactions where id = ${t.monitored_transaction_id}::uuid`,
      ),
    )[0]!;
    expect(row).toEqual({ decision: 'IN_REVIEW', remediation_status: 'expired' });
    const page = await ctx.app.inject({ url: new URL(t.remediation_url!).pathname });
    expect(page.statusCode).toBe(410);
    ctx.clock.advance(-(72 * 3_600_000 + 1000));
  });

  it('AWAITING_USER -> DECLINED on expiry with on_remediation_expiry DECLINED (sandbox simulate)', async () => {
    const c = await createTestClient(ctx);
    await putPolicy(ctx, c, { rules: [AWAIT], on_remediation_expiry: 'DECLINED' });
    const t = await submit(ctx, c, { payment_method: 'crypto' });
    const sim = await call(
      'POST',
      `/sandbox/monitoring/transactions/${t.monitored_transaction_id}/simulate`,
      c,
      {
        action: 'remediation_expired',
      },
    );
    expect(sim.json()).toMatchObject({ decision: 'DECLINED', remediation_status: 'expired' });
    const again = await call(
      'POST',
      `/sandbox/monitoring/transactions/${t.monitored_transaction_id}/simulate`,
      c,
      {
        action: 'remediation_expired',
      },
    );
    expect(again.statusCode).toBe(400);
  });

  it('AWAITING_USER -> APPROVED / DECLINED by review revokes the link', async () => {
    for (const decision of ['APPROVED', 'DECLINED']) {
      const t = await submit(ctx, owner, { payment_method: 'crypto' });
      const r = await review(t.monitored_transaction_id, { decision, note: 'Decided without the customer' });
      expect(r.json()).toMatchObject({ decision, remediation_url: null });
      const page = await ctx.app.inject({ url: new URL(t.remediation_url!).pathname });
      expect(page.statusCode).toBe(410);
      expect((await eventsOf(t.monitored_transaction_id)).map((e) => e.decision)).toEqual([
        'AWAITING_USER',
        decision,
      ]);
    }
  });

  it('sanctions: approving needs clear_sanctions_match, which allowlists the counterparty', async () => {
    const cp = { counterparty: { name: 'Olga SANCTIONED', account_identifier: 'DE001' } };
    const t = await submit(ctx, owner, cp);
    expect(t).toMatchObject({ decision: 'IN_REVIEW', sanctions_hit: true });
    expect(t.sanctions_matches).toEqual([
      { list: 'Sandbox sanctions list', matched_name: 'Olga SANCTIONED', match_score: 100 },
    ]);
    const no = await review(t.monitored_transaction_id, { decision: 'APPROVED', note: 'ok' });
    expect(no.json()).toEqual({ detail: 'Clear the sanctions match before approving' });
    const yes = await review(t.monitored_transaction_id, {
      decision: 'APPROVED',
      note: 'Different person: date of birth differs',
      clear_sanctions_match: true,
    });
    expect(yes.json().reviews[0]).toMatchObject({ cleared_sanctions_match: true });
    // The same counterparty no longer matches; another identifier or another client still does.
    expect((await submit(ctx, owner, cp)).sanctions_hit).toBe(false);
    expect(
      (await submit(ctx, owner, { counterparty: { name: 'olga  sanctioned', account_identifier: 'DE001' } }))
        .sanctions_hit,
    ).toBe(false);
    expect(
      (await submit(ctx, owner, { counterparty: { name: 'Olga SANCTIONED', account_identifier: 'XX9' } }))
        .sanctions_hit,
    ).toBe(true);
    expect((await submit(ctx, other, cp)).sanctions_hit).toBe(true);
  });
});

describe('submission rules, lists and isolation', () => {
  it('repeats answer 200 with the record; another payload is 409', async () => {
    const body = txBody();
    const first = await call('POST', '/monitoring/transactions', owner, body);
    expect(first.statusCode).toBe(201);
    const again = await call('POST', '/monitoring/transactions', owner, body);
    expect(again.statusCode).toBe(200);
    expect(again.json().monitored_transaction_id).toBe(first.json().monitored_transaction_id);
    const diff = await call('POST', '/monitoring/transactions', owner, { ...body, amount: '101.00' });
    expect(diff.statusCode).toBe(409);
    expect(diff.json()).toEqual({
      detail: 'Monitored transaction with this client_reference already exists',
    });
    // Another client may use the same reference.
    expect((await call('POST', '/monitoring/transactions', other, body)).statusCode).toBe(201);
  });

  it('validates the body with loc', async () => {
    const bad = await call(
      'POST',
      '/monitoring/transactions',
      owner,
      txBody({ amount: '0', user_id: undefined }),
    );
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toContainEqual({
      loc: ['body', 'amount'],
      msg: 'Amount must be greater than 0',
      type: 'value_error',
    });
    const two = await call('POST', '/monitoring/transactions', owner, txBody({ user_id: owner.accountId }));
    expect(two.json().detail[0]).toMatchObject({
      loc: ['body'],
      msg: 'Exactly one of user_id, business_customer_id or customer is required',
    });
  });

  it('404s for another client: transactions, users, platform transactions', async () => {
    const t = await submit(ctx, owner, {});
    const foreign = await call('GET', `/monitoring/transactions/${t.monitored_transaction_id}`, other);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Monitored transaction not found' });
    const r = await review(t.monitored_transaction_id, { decision: 'DECLINED', note: 'n' }, other);
    expect(r.json()).toEqual({ detail: 'Monitored transaction not found' });
    const sim = await call(
      'POST',
      `/sandbox/monitoring/transactions/${t.monitored_transaction_id}/simulate`,
      other,
      {
        action: 'remediation_expired',
      },
    );
    expect(sim.statusCode).toBe(404);
    const user = await createUser(ctx, owner.clientId);
    const u = await call(
      'POST',
      '/monitoring/transactions',
      other,
      txBody({ customer: undefined, user_id: user }),
    );
    expect(u.json()).toEqual({ detail: 'User not found' });
    const tx = await call(
      'POST',
      '/monitoring/transactions',
      owner,
      txBody({ transaction_id: t.monitored_transaction_id }),
    );
    expect(tx.json()).toEqual({ detail: 'Transaction not found' });
  });

  it('lists with the top-level counters, filters and q', async () => {
    const c = await createTestClient(ctx);
    const empty = await call('GET', '/monitoring/transactions', c);
    expect(empty.json()).toEqual({
      monitored_transactions: [],
      records: 0,
      page: 1,
      page_size: 20,
      total: 0,
      total_pages: 0,
    });
    await putPolicy(ctx, c, { rules: [REVIEW] });
    await submit(ctx, c, {
      client_reference: 'order-ALPHA-1',
      counterparty: { name: 'Zed Supplies', account_identifier: 'GB29NWBK60161331926819' },
    });
    await submit(ctx, c, {
      client_reference: 'order-beta-2',
      payment_method: 'cash',
      customer: { external_id: 'ext-Quartz-9', name: 'Q' },
    });
    await submit(ctx, c, { client_reference: 'order-gamma-3', direction: 'inbound' });
    const list = (await call('GET', '/monitoring/transactions?page_size=2', c)).json();
    expect(list).toMatchObject({ records: 2, page: 1, page_size: 2, total: 3, total_pages: 2 });
    expect(list.monitored_transactions.map((t: Json) => t.client_reference)).toEqual([
      'order-gamma-3',
      'order-beta-2',
    ]);
    const q = async (s: string) =>
      (await call('GET', `/monitoring/transactions?q=${encodeURIComponent(s)}`, c))
        .json()
        .monitored_transactions.map((t: Json) => t.client_reference);
    expect(await q('alpha')).toEqual(['order-ALPHA-1']);
    expect(await q('zed sup')).toEqual(['order-ALPHA-1']);
    expect(await q('nwbk6016')).toEqual(['order-ALPHA-1']);
    expect(await q('QUARTZ')).toEqual(['order-beta-2']);
    expect(await q('%')).toEqual([]);
    expect((await call('GET', '/monitoring/transactions?q=%20%20', c)).statusCode).toBe(422);
    const f = async (qs: string) => (await call('GET', `/monitoring/transactions?${qs}`, c)).json().total;
    expect(await f('decision=IN_REVIEW')).toBe(1);
    expect(await f('direction=inbound')).toBe(1);
    expect(await f('sanctions_hit=false')).toBe(3);
    expect(await f('remediation_status=pending')).toBe(0);
    expect(await f(`from=${encodeURIComponent(ctx.clock.now().toISOString())}`)).toBe(3);
    expect(await f(`to=${encodeURIComponent(ctx.clock.now().toISOString())}`)).toBe(0);
    expect((await call('GET', '/monitoring/transactions?page_size=201', c)).statusCode).toBe(422);
  });
});
