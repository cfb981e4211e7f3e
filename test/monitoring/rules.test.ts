/**
 * Every rule type of the engine, hit and miss, through POST /monitoring/transactions: history rules
 * (velocity_count, velocity_amount, structuring) count the same customer's transactions inside the
 * window, this one included, and nobody else's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAGIC_ADDRESSES } from '../../src/modules/screening/magic-addresses.policy';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { createBusiness, createUser, type Json, putPolicy, rule, submit } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
const HOUR = 3_600_000;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
});
afterAll(() => ctx.close());
const magic = (suffix: string) => MAGIC_ADDRESSES.ethereum[suffix as '9999'] as string;

const at = (hoursAgo: number) => new Date(ctx.clock.now().getTime() - hoursAgo * HOUR).toISOString();
const only = (r: Json) => putPolicy(ctx, owner, { rules: [r] });
const hitIds = (t: { rule_hits: { rule_id: string }[] }) => t.rule_hits.map((h) => h.rule_id);
const cust = (id: string) => ({ customer: { external_id: id, name: 'Jane Customer', country: 'DE' } });

describe('rule types', () => {
  it('amount_above: strictly above, same currency only', async () => {
    await only(rule('big', 'amount_above', { amount: '1000', currency: 'EUR' }));
    expect((await submit(ctx, owner, { amount: '1000.01' })).decision).toBe('IN_REVIEW');
    expect((await submit(ctx, owner, { amount: '1000.00' })).decision).toBe('APPROVED');
    expect((await submit(ctx, owner, { amount: '5000', currency: 'USD' })).decision).toBe('APPROVED');
    const hit = await submit(ctx, owner, { amount: '2000' });
    expect(hit.rule_hits).toEqual([
      { rule_id: 'big', name: 'Rule big', type: 'amount_above', action: 'review', score: 0 },
    ]);
    expect(hit.decision_reason).toBe("Rule 'big' (Rule big): review");
  });

  it('velocity_count: more than count in the window, this one included, per customer', async () => {
    await only(rule('burst', 'velocity_count', { count: 2, window_hours: 24 }));
    const c = cust('velo-1');
    expect(hitIds(await submit(ctx, owner, { ...c, occurred_at: at(30) }))).toEqual([]); // outside the window later
    expect(hitIds(await submit(ctx, owner, { ...c, occurred_at: at(5) }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { ...c, occurred_at: at(4) }))).toEqual([]); // 2 in window
    expect(hitIds(await submit(ctx, owner, { ...cust('velo-other'), occurred_at: at(3) }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { ...c, occurred_at: at(1) }))).toEqual(['burst']); // 3 > 2
  });

  it('velocity_amount: the window total in the rule currency, this one included', async () => {
    await only(rule('volume', 'velocity_amount', { amount: '500', currency: 'EUR', window_hours: 24 }));
    const c = cust('vamt-1');
    await submit(ctx, owner, { ...c, amount: '200', occurred_at: at(3) });
    await submit(ctx, owner, { ...c, amount: '900', currency: 'USD', occurred_at: at(2) });
    await submit(ctx, owner, { ...c, amount: '1000', occurred_at: at(48) });
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '300', occurred_at: at(1) }))).toEqual([]); // 500
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '0.01', occurred_at: at(0.5) }))).toEqual([
      'volume',
    ]);
  });

  it('structuring: at least count transactions each within 90%-100% of the threshold', async () => {
    await only(
      rule('split', 'structuring', { threshold: '1000', currency: 'EUR', count: 3, window_hours: 48 }),
    );
    const c = cust('struct-1');
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '950', occurred_at: at(10) }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '800', occurred_at: at(9) }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '900.00', occurred_at: at(8) }))).toEqual([]);
    // Three in the band now (950, 900, 999.99); 1000 itself is not below the threshold.
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '1000', occurred_at: at(7) }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { ...c, amount: '999.99', occurred_at: at(6) }))).toEqual([
      'split',
    ]);
    // Another customer's band transactions do not count.
    expect(
      hitIds(await submit(ctx, owner, { ...cust('struct-2'), amount: '950', occurred_at: at(5) })),
    ).toEqual([]);
  });

  it('country_in: counterparty or customer country', async () => {
    await putPolicy(ctx, owner, {
      rules: [
        rule('cp', 'country_in', { countries: ['IR'], party: 'counterparty' }),
        rule(
          'cu',
          'country_in',
          { countries: ['GB', 'RU'], party: 'customer' },
          { action: 'score', score: 1 },
        ),
      ],
    });
    const cp = await submit(ctx, owner, { counterparty: { name: 'Ali', country: 'IR' } });
    expect(hitIds(cp)).toEqual(['cp']);
    expect(
      hitIds(await submit(ctx, owner, { customer: { external_id: 'x', name: 'Y', country: 'RU' } })),
    ).toEqual(['cu']);
    const biz = await createBusiness(ctx, owner.clientId, 'approved', 'GB');
    expect(hitIds(await submit(ctx, owner, { customer: undefined, business_customer_id: biz }))).toEqual([
      'cu',
    ]);
    expect(hitIds(await submit(ctx, owner, {}))).toEqual([]);
  });

  it('customer_not_verified: users and businesses not approved, inline customers', async () => {
    await only(rule('kyc', 'customer_not_verified', {}));
    const approved = await createUser(ctx, owner.clientId, 'approved');
    const pending = await createUser(ctx, owner.clientId, 'pending');
    const bizOk = await createBusiness(ctx, owner.clientId, 'approved');
    const bizNo = await createBusiness(ctx, owner.clientId, 'none');
    expect(hitIds(await submit(ctx, owner, { customer: undefined, user_id: approved }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { customer: undefined, user_id: pending }))).toEqual(['kyc']);
    expect(hitIds(await submit(ctx, owner, { customer: undefined, business_customer_id: bizOk }))).toEqual(
      [],
    );
    expect(hitIds(await submit(ctx, owner, { customer: undefined, business_customer_id: bizNo }))).toEqual([
      'kyc',
    ]);
    expect(hitIds(await submit(ctx, owner, {}))).toEqual(['kyc']);
  });

  it('new_customer: known for fewer than `days` days', async () => {
    await only(rule('fresh', 'new_customer', { days: 7 }));
    const old = await createUser(
      ctx,
      owner.clientId,
      'approved',
      new Date(ctx.clock.now().getTime() - 10 * 24 * HOUR),
    );
    const young = await createUser(ctx, owner.clientId, 'approved');
    expect(hitIds(await submit(ctx, owner, { customer: undefined, user_id: old }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { customer: undefined, user_id: young }))).toEqual(['fresh']);
    // An inline customer is known since its first monitored transaction.
    const c = cust('seen-long-ago');
    expect(hitIds(await submit(ctx, owner, { ...c, occurred_at: at(24 * 20) }))).toEqual(['fresh']);
    expect(hitIds(await submit(ctx, owner, c))).toEqual([]);
  });

  it('payment_method_in', async () => {
    await only(rule('cash', 'payment_method_in', { methods: ['cash', 'crypto'] }));
    expect(hitIds(await submit(ctx, owner, { payment_method: 'cash' }))).toEqual(['cash']);
    expect(hitIds(await submit(ctx, owner, { payment_method: 'card' }))).toEqual([]);
    expect(hitIds(await submit(ctx, owner, { payment_method: undefined }))).toEqual([]);
  });

  it('counterparty_wallet_risk: at or above the level; pending, failed or unknown counts as a review', async () => {
    await only(
      rule(
        'wallet',
        'counterparty_wallet_risk',
        { min_risk_level: 'high' },
        { action: 'require_user', remediation_type: 'wallet_ownership' },
      ),
    );
    const cp = (suffix: string) => ({
      counterparty: { name: `W ${suffix}`, wallet: { chain: 'ethereum', address: magic(suffix) } },
    });
    expect(hitIds(await submit(ctx, owner, {}))).toEqual([]); // no wallet
    for (const suffix of ['5555', '6666', '4444']) {
      const t = await submit(ctx, owner, cp(suffix));
      expect(t.rule_hits[0]).toMatchObject({ rule_id: 'wallet', action: 'review' });
      expect(t.decision).toBe('IN_REVIEW');
      expect(t.wallet_screening_id).toEqual(expect.any(String));
    }
    expect(hitIds(await submit(ctx, owner, cp('7777')))).toEqual([]); // medium < high
    const severe = await submit(ctx, owner, cp('9999'));
    expect(hitIds(severe)).toEqual(['wallet']);
    expect(severe.decision).toBe('AWAITING_USER');
    expect(severe.remediation).toMatchObject({
      type: 'wallet_ownership',
      status: 'pending',
      ownership_request_id: expect.any(String),
    });
  });

  it('monitoring screens the counterparty wallet itself (trigger monitoring), reusing a fresh screening', async () => {
    await only(rule('wallet', 'counterparty_wallet_risk', { min_risk_level: 'high' }));
    const cp = { counterparty: { name: 'W 3333', wallet: { chain: 'ethereum', address: magic('3333') } } };
    // Never screened before: monitoring starts the screening; 3333 is low at first.
    const first = await submit(ctx, owner, cp);
    expect(hitIds(first)).toEqual([]);
    const screening = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/screening/wallet/${first.wallet_screening_id}`,
        headers: owner.headers,
      })
    ).json();
    expect(screening).toMatchObject({ status: 'completed', risk_level: 'low', trigger: 'monitoring' });
    // Younger than SVC_MONITORING_WALLET_MAX_AGE_SECONDS (1 day): the same screening answers.
    ctx.clock.advance(23 * HOUR);
    owner = await createTestClient(ctx, { clientId: owner.clientId }); // a token valid at the new time
    expect((await submit(ctx, owner, cp)).wallet_screening_id).toBe(first.wallet_screening_id);
    // Older: a new screening, and 3333 is high on a re-screen.
    ctx.clock.advance(2 * HOUR);
    owner = await createTestClient(ctx, { clientId: owner.clientId });
    const later = await submit(ctx, owner, cp);
    expect(later.wallet_screening_id).not.toBe(first.wallet_screening_id);
    expect(hitIds(later)).toEqual(['wallet']);
    // The policy test reads the latest screening and starts none.
    const probe = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/monitoring/policy/test',
      headers: owner.headers,
      payload: {
        transaction: {
          direction: 'outbound',
          amount: '10',
          currency: 'EUR',
          customer: { external_id: 'probe', name: 'Probe' },
          counterparty: { name: 'W new', wallet: { chain: 'ethereum', address: magic('8888') } },
        },
      },
    });
    expect(probe.json()).toMatchObject({ decision: 'IN_REVIEW' }); // never screened: pending
    const wallets = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/screening/wallets?q=${magic('8888')}`,
        headers: owner.headers,
      })
    ).json();
    expect(wallets.total).toBe(0);
  });

  it('skips disabled rules', async () => {
    await only(rule('off', 'payment_method_in', { methods: ['bank_transfer'] }, { enabled: false }));
    expect(hitIds(await submit(ctx, owner, {}))).toEqual([]);
  });
});
