/**
 * The monitoring policy: the default every client starts with, versions on PUT, every rule type
 * accepted, every bad rule a 422 whose `loc` points into the rule, permissions and the feature switch.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients } from '../../src/db/schema/index';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, type Json, putPolicy, rule } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  owner = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const EVERY_RULE: Json[] = [
  rule('big', 'amount_above', { amount: '1000', currency: 'EUR' }, { action: 'score', score: 30 }),
  rule('burst', 'velocity_count', { count: 3, window_hours: 24 }),
  rule('volume', 'velocity_amount', { amount: '5000.5', currency: 'EUR', window_hours: 24 }),
  rule('split', 'structuring', { threshold: '10000', currency: 'EUR', count: 3, window_hours: 48 }),
  rule('geo', 'country_in', { countries: ['IR', 'KP'], party: 'counterparty' }, { action: 'decline' }),
  rule('kyc', 'customer_not_verified', {}, { action: 'score', score: 10 }),
  rule('fresh', 'new_customer', { days: 7 }, { action: 'score', score: 5, enabled: false }),
  rule('cash', 'payment_method_in', { methods: ['cash', 'crypto'] }),
  rule(
    'wallet',
    'counterparty_wallet_risk',
    { min_risk_level: 'high' },
    { action: 'require_user', remediation_type: 'wallet_ownership' },
  ),
];

const put = (body: Json) => call('PUT', '/monitoring/policy', owner, body);
const locs = (res: { json(): unknown }) =>
  ((res.json() as { detail: { loc: unknown[] }[] }).detail ?? []).map((d) => d.loc);

describe('monitoring policy', () => {
  it('starts every client with the default policy (version 0, no rules)', async () => {
    const res = await call('GET', '/monitoring/policy', owner);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      version: 0,
      rules: [],
      review_score: 50,
      decline_score: 100,
      sanctions: { enabled: true, action: 'review', match_threshold: null },
      remediation_ttl_hours: 72,
      on_remediation_expiry: 'IN_REVIEW',
      updated_at: null,
      updated_by_account_id: null,
    });
  });

  it('accepts every rule type and bumps the version on each PUT', async () => {
    const v1 = await putPolicy(ctx, owner, { rules: EVERY_RULE, review_score: 40, decline_score: 90 });
    expect(v1.version).toBe(1);
    expect(v1.updated_by_account_id).toBe(owner.accountId);
    const rules = v1.rules as Json[];
    expect(rules.map((r) => r.type)).toEqual(EVERY_RULE.map((r) => r.type));
    // Canonical amounts, defaults filled in.
    expect(rules[0]).toEqual({
      rule_id: 'big',
      name: 'Rule big',
      type: 'amount_above',
      params: { amount: '1000.00', currency: 'EUR' },
      enabled: true,
      action: 'score',
      score: 30,
      remediation_type: null,
    });
    expect(rules[2]!.params).toEqual({ amount: '5000.50', currency: 'EUR', window_hours: 24 });
    expect(rules[6]!.enabled).toBe(false);
    const v2 = await putPolicy(ctx, owner, {
      rules: [],
      sanctions: { action: 'decline', match_threshold: 90 },
    });
    expect(v2.version).toBe(2);
    expect(v2.sanctions).toEqual({ enabled: true, action: 'decline', match_threshold: 90 });
    expect((await call('GET', '/monitoring/policy', owner)).json()).toMatchObject({ version: 2, rules: [] });
  });

  const BAD: [string, Json, (string | number)[]][] = [
    ['amount_above without amount', rule('r', 'amount_above', { currency: 'EUR' }), ['params', 'amount']],
    [
      'amount_above bad amount',
      rule('r', 'amount_above', { amount: '-5', currency: 'EUR' }),
      ['params', 'amount'],
    ],
    [
      'amount_above bad currency',
      rule('r', 'amount_above', { amount: '5', currency: 'XXZ' }),
      ['params', 'currency'],
    ],
    [
      'velocity_count count 0',
      rule('r', 'velocity_count', { count: 0, window_hours: 1 }),
      ['params', 'count'],
    ],
    [
      'velocity_count window',
      rule('r', 'velocity_count', { count: 2, window_hours: 0 }),
      ['params', 'window_hours'],
    ],
    [
      'velocity_amount no window',
      rule('r', 'velocity_amount', { amount: '10', currency: 'EUR' }),
      ['params', 'window_hours'],
    ],
    [
      'structuring bad threshold',
      rule('r', 'structuring', { threshold: 'ten', currency: 'EUR', count: 2, window_hours: 5 }),
      ['params', 'threshold'],
    ],
    [
      'country_in unknown country',
      rule('r', 'country_in', { countries: ['DE', 'QQ'], party: 'customer' }),
      ['params', 'countries', 1],
    ],
    [
      'country_in bad party',
      rule('r', 'country_in', { countries: ['DE'], party: 'bank' }),
      ['params', 'party'],
    ],
    [
      'customer_not_verified extra',
      rule('r', 'customer_not_verified', { strict: true }),
      ['params', 'strict'],
    ],
    ['new_customer days', rule('r', 'new_customer', { days: 'seven' }), ['params', 'days']],
    [
      'payment_method_in unknown',
      rule('r', 'payment_method_in', { methods: ['cheque'] }),
      ['params', 'methods', 0],
    ],
    [
      'wallet risk level',
      rule('r', 'counterparty_wallet_risk', { min_risk_level: 'unknown' }),
      ['params', 'min_risk_level'],
    ],
    [
      'require_user without remediation_type',
      rule('r', 'new_customer', { days: 1 }, { action: 'require_user' }),
      ['remediation_type'],
    ],
    ['unknown type', rule('r', 'moon_phase', {}), ['type']],
    ['score above 100', rule('r', 'new_customer', { days: 1 }, { action: 'score', score: 101 }), ['score']],
    ['bad slug', rule('Bad Id', 'new_customer', { days: 1 }), ['rule_id']],
  ];

  it.each(BAD)('422 with loc at the rule: %s', async (_name, bad, loc) => {
    const ok = rule('ok', 'new_customer', { days: 3 });
    const res = await put({ rules: [ok, ok === bad ? ok : { ...ok, rule_id: 'ok2' }, bad] });
    expect(res.statusCode).toBe(422);
    expect(locs(res)).toContainEqual(['body', 'rules', 2, ...loc]);
  });

  it('refuses a duplicate rule_id at the second rule', async () => {
    const r = rule('dup', 'new_customer', { days: 3 });
    const res = await put({ rules: [r, r] });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['body', 'rules', 1, 'rule_id'], msg: "Duplicate rule_id 'dup'", type: 'value_error' },
    ]);
  });

  it('locates bad rules of a candidate policy under body.policy (test and backtest)', async () => {
    const bad = { rules: [rule('r', 'amount_above', { amount: '0', currency: 'EUR' })] };
    for (const path of ['/monitoring/policy/test', '/monitoring/policy/backtest']) {
      const res = await call('POST', path, owner, {
        policy: bad,
        ...(path === '/monitoring/policy/test'
          ? {
              transaction: {
                direction: 'inbound',
                amount: '1',
                currency: 'EUR',
                customer: { external_id: 'c', name: 'C' },
                counterparty: { name: 'X' },
              },
            }
          : {}),
      });
      expect(res.statusCode).toBe(422);
      expect(locs(res)).toContainEqual(['body', 'policy', 'rules', 0, 'params', 'amount']);
    }
  });

  it('needs monitoring.policy.write to replace and monitoring.read to read', async () => {
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    expect((await call('PUT', '/monitoring/policy', ops, { rules: [] })).statusCode).toBe(403);
    expect((await call('GET', '/monitoring/policy', ops)).statusCode).toBe(200);
    expect((await call('GET', '/monitoring/policy', dev)).statusCode).toBe(403);
  });

  it('refuses writes while the area is switched off; reads still work', async () => {
    const other = await createTestClient(ctx);
    await ctx.db
      .update(clients)
      .set({ features: { transaction_monitoring: false } })
      .where(eq(clients.id, other.clientId));
    const res = await call('PUT', '/monitoring/policy', other, { rules: [] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'Transaction monitoring is disabled for this client' });
    expect((await call('GET', '/monitoring/policy', other)).statusCode).toBe(200);
  });
});
