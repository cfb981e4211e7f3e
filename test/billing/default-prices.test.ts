/**
 * Sandbox deployments bill from a default price list until staff set one, so a sandbox client can
 * try usage and invoices end to end; production keeps refusing without a list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { staffHeaders } from '../org/fixtures';
import { createPaylink, createPaymentWorld, pickBank, simulate } from '../payments/fixtures';
import { api, PRICES, putPrices } from './fixtures';

const SANDBOX_DEFAULT = {
  platform_fee_monthly: '49.00',
  transaction_success: '0.25',
  kyc_verification: '1.50',
  kyb_verification: '3.00',
  wallet_screening: '0.10',
  travel_rule_transfer: '0.50',
  contract_request: '1.00',
};

describe('sandbox: a default price list for every client without one', () => {
  let ctx: TestContext;
  let staff: Record<string, string>;
  beforeAll(async () => {
    ctx = await createTestApp();
    staff = (await staffHeaders(ctx)).headers;
  });
  afterAll(() => ctx.close());

  it('usage is estimated from the default, and a draft from usage uses it too', async () => {
    const w = await createPaymentWorld(ctx);
    const t = await createPaylink(ctx, w);
    await pickBank(ctx, t.checkout_url);
    expect((await simulate(ctx, w, t.transaction_id, 'completed')).json().status).toBe('success');

    const usage = await api(ctx)('GET', '/billing/usage', w.caller.headers);
    expect(usage.statusCode, usage.body).toBe(200);
    const body = usage.json();
    expect(body.currency).toBe('EUR');
    const lines = Object.fromEntries(
      body.lines.map((l: { category: string; quantity: number; unit_amount: string; amount: string }) => [
        l.category,
        [l.quantity, l.unit_amount, l.amount],
      ]),
    );
    expect(lines).toMatchObject({
      platform_fee: [1, '49.00', '49.00'],
      transaction_fee: [1, '0.25', '0.25'],
    });
    expect(body.subtotal).toBe('49.25');

    const view = await api(ctx)('GET', `/admin/clients/${w.caller.clientId}/billing-prices`, staff);
    expect(view.json()).toEqual({
      client_id: w.caller.clientId,
      currency: 'EUR',
      prices: SANDBOX_DEFAULT,
      source: 'sandbox_default',
      updated_at: null,
    });

    const draft = await api(ctx)('POST', '/admin/billing/invoices', staff, {
      client_id: w.caller.clientId,
      currency: 'EUR',
      period_start: body.period_start,
      period_end: body.period_end,
      from_usage: true,
    });
    expect(draft.statusCode, draft.body).toBe(201);
    expect(draft.json()).toMatchObject({ subtotal: '49.25' });
  });

  it('a list staff set replaces the default', async () => {
    const c = await createTestClient(ctx);
    const saved = await putPrices(ctx, staff, c.clientId);
    expect(saved).toMatchObject({ source: 'custom', prices: PRICES });
    expect(saved.updated_at).toEqual(expect.any(String));
    const usage = (await api(ctx)('GET', '/billing/usage', c.headers)).json();
    expect(usage.lines.find((l: { category: string }) => l.category === 'platform_fee').unit_amount).toBe(
      PRICES.platform_fee_monthly,
    );
  });
});

describe('production: no list, no estimate', () => {
  let ctx: TestContext;
  let caller: TestCaller;
  let staff: Record<string, string>;
  beforeAll(async () => {
    ctx = await createTestApp({ env: { ...PRODUCTION_ENV } });
    caller = await createTestClient(ctx, { productionAccess: true });
    staff = (await staffHeaders(ctx)).headers;
  });
  afterAll(() => ctx.close());

  it('usage and a draft from usage are 400 until staff set a price list', async () => {
    const usage = await api(ctx)('GET', '/billing/usage', caller.headers);
    expect([usage.statusCode, usage.json()]).toEqual([400, { detail: 'Client has no billing price list' }]);
    const view = await api(ctx)('GET', `/admin/clients/${caller.clientId}/billing-prices`, staff);
    expect([view.statusCode, view.json()]).toEqual([404, { detail: 'Client has no billing price list' }]);
    const draft = await api(ctx)('POST', '/admin/billing/invoices', staff, {
      client_id: caller.clientId,
      currency: 'EUR',
      period_start: '2026-01-01',
      period_end: '2026-01-31',
      from_usage: true,
    });
    expect([draft.statusCode, draft.json()]).toEqual([400, { detail: 'Client has no billing price list' }]);
  });
});
