/**
 * Every entry of a payment's money refuses what is not money a bank moves (XAU, XXX, funds codes),
 * an amount over the deployment's maximum and a negative amount, with the same messages at the
 * field: payment links, bulk rows, schedules, recurring payments (and their charges), contract
 * flows and invoices. A deployment narrows the currencies with SVC_PAYMENT_CURRENCIES.
 */
import { describe, expect, it } from 'vitest';
import { api as billingApi, createDraft, finalize } from '../billing/fixtures';
import { postBulk } from '../bulk-links/fixtures';
import { call, createTemplate } from '../contracts/fixtures';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { staffHeaders } from '../org/fixtures';
import { createActive, api as recurringApi, recurringBody } from '../recurring/fixtures';
import { postSchedule } from '../schedules/fixtures';
import { createPaymentWorld, newKey, type PaymentWorld, paylinkBody } from './fixtures';

const NOT_PAYMENT = (code: string) =>
  `${code} is not a currency of payment (precious metals, funds codes, units of account and testing codes are refused)`;
const OVER = 'Amount must not exceed 1000000.00 EUR';
const NOT_POSITIVE = 'Amount must be greater than 0';

const s = paymentApp();

type Issue = { loc: (string | number)[]; msg: string };
const issues = (res: { statusCode: number; body: string; json(): unknown }) => {
  expect(res.statusCode, res.body).toBe(422);
  return ((res.json() as { detail: Issue[] }).detail ?? []).map((i) => [i.loc.join('.'), i.msg]);
};

const paylink = (payload: object, c: TestContext = s.ctx, world: PaymentWorld = s.w) =>
  c.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...world.caller.headers, 'x-idempotency-key': newKey() },
    payload,
  });

describe('payment links', () => {
  it('refuses codes that are not a currency of payment, amounts over the maximum and negative amounts', async () => {
    for (const code of ['XAU', 'XXX', 'XTS', 'XDR', 'CHE', 'BOV'])
      expect(issues(await paylink(paylinkBody(s.w, { amount: '1', currency: code })))).toEqual([
        ['body.currency', NOT_PAYMENT(code)],
      ]);
    expect(issues(await paylink(paylinkBody(s.w, { amount: '1000000000.00' })))).toEqual([
      ['body.amount', OVER],
    ]);
    expect(issues(await paylink(paylinkBody(s.w, { amount: '1000000.01' })))).toEqual([
      ['body.amount', OVER],
    ]);
    expect(issues(await paylink(paylinkBody(s.w, { amount: '-1' })))).toEqual([
      ['body.amount', NOT_POSITIVE],
    ]);
    expect(issues(await paylink(paylinkBody(s.w, { amount: '0' })))).toEqual([['body.amount', NOT_POSITIVE]]);
    const max = await paylink(paylinkBody(s.w, { amount: '1000000' }));
    expect(max.statusCode, max.body).toBe(201);
    expect(max.json().amount).toBe('1000000.00');
  });

  it('follows SVC_PAYMENT_CURRENCIES and a maximum per currency', async () => {
    const narrow = await createTestApp({
      env: { SVC_PAYMENT_CURRENCIES: 'EUR,GBP', SVC_PAYMENT_MAX_AMOUNT: '500.00,GBP=250' },
    });
    try {
      const nw = await createPaymentWorld(narrow);
      expect(issues(await paylink(paylinkBody(nw, { currency: 'USD' }), narrow, nw))).toEqual([
        ['body.currency', 'Currency USD is not accepted for payments here; accepted: EUR, GBP'],
      ]);
      expect(issues(await paylink(paylinkBody(nw, { amount: '500.01' }), narrow, nw))).toEqual([
        ['body.amount', 'Amount must not exceed 500.00 EUR'],
      ]);
      expect(
        issues(await paylink(paylinkBody(nw, { amount: '250.01', currency: 'GBP' }), narrow, nw)),
      ).toEqual([['body.amount', 'Amount must not exceed 250 GBP']]);
      expect((await paylink(paylinkBody(nw, { amount: '500.00' }), narrow, nw)).statusCode).toBe(201);
    } finally {
      await narrow.close();
    }
  });
});

describe('the other ways a payment is asked for', () => {
  it('bulk rows', async () => {
    const res = await postBulk(s.ctx, s.w.caller, {
      preview: true,
      rows: [
        { amount: '1', currency: 'XAU', project_id: s.w.projectId, user_id: s.w.userId },
        { amount: '2000000', currency: 'EUR', project_id: s.w.projectId, user_id: s.w.userId },
        { amount: '-5', currency: 'EUR', project_id: s.w.projectId, user_id: s.w.userId },
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const rows = await s.ctx.app.inject({
      url: `/api/v1/checkout/paylink/bulk/${res.json().bulk_id}/rows`,
      headers: s.w.caller.headers,
    });
    expect(rows.json().rows.map((r: { errors: { field: string; msg: string }[] }) => r.errors)).toEqual([
      [{ field: 'currency', value: 'XAU', msg: NOT_PAYMENT('XAU') }],
      [{ field: 'amount', value: '2000000', msg: OVER }],
      [{ field: 'amount', value: '-5', msg: NOT_POSITIVE }],
    ]);
  });

  it('schedules: the currency, each instalment against the maximum, a plan total above it when its parts fit', async () => {
    const today = s.ctx.clock.now().toISOString().slice(0, 10);
    const body = (extra: object) => ({
      project_id: s.w.projectId,
      user_id: s.w.userId,
      currency: 'EUR',
      ...extra,
    });
    const plan = (total: string, count: number) => ({
      plan: { total_amount: total, count, interval: 'month', start_date: today },
    });
    expect(
      issues(await postSchedule(s.ctx, s.w.caller, body({ currency: 'XXX', ...plan('10', 2) }))),
    ).toEqual([['body.currency', NOT_PAYMENT('XXX')]]);
    expect(issues(await postSchedule(s.ctx, s.w.caller, body(plan('2000000.02', 2))))).toEqual([
      ['body.plan.total_amount', 'Each instalment must not exceed 1000000.00 EUR'],
    ]);
    expect(
      issues(
        await postSchedule(
          s.ctx,
          s.w.caller,
          body({ instalments: [{ amount: '1000000.01', due_date: today }] }),
        ),
      ),
    ).toEqual([['body.instalments.0.amount', OVER]]);
    const ok = await postSchedule(s.ctx, s.w.caller, body(plan('2000000.00', 2)));
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('recurring payments and their charges', async () => {
    const create = (over: object) =>
      recurringApi(
        s.ctx,
        s.w,
        'POST',
        '/recurring-payments',
        recurringBody(s.w, { amount: undefined, schedule: undefined, ...over }),
        {
          'x-idempotency-key': newKey(),
        },
      );
    expect(issues(await create({ currency: 'XAG' }))).toEqual([['body.currency', NOT_PAYMENT('XAG')]]);
    const d = await createActive(s.ctx, s.w, {
      amount: undefined,
      schedule: undefined,
      mandate: {
        max_amount_per_payment: '5000000.00',
        periodic_limit: { amount: '9000000.00', period: 'month', alignment: 'calendar' },
      },
    });
    const charge = (amount: string) =>
      recurringApi(
        s.ctx,
        s.w,
        'POST',
        `/recurring-payments/${d.definition_id}/runs`,
        { amount },
        {
          'x-idempotency-key': newKey(),
        },
      );
    expect(issues(await charge('1000000.01'))).toEqual([['body.amount', OVER]]);
    expect(issues(await charge('-3'))).toEqual([['body.amount', NOT_POSITIVE]]);
    expect(
      issues(
        await recurringApi(s.ctx, s.w, 'PATCH', `/recurring-payments/${d.definition_id}`, {
          amount: '1000000.01',
        }),
      ),
    ).toEqual([['body.amount', OVER]]);
  });

  it('contract flows with a payment', async () => {
    const template = await createTemplate(s.ctx, s.w.caller);
    const res = await call(s.ctx, s.w.caller)('POST', '/contracts/workflows', {
      name: 'Gold deal',
      template_ids: [template.template_id],
      payment: { amount: '1', currency: 'XAU', project_id: s.w.projectId, payer_role: 'client' },
    });
    expect(issues(res)).toEqual([['body.payment.currency', NOT_PAYMENT('XAU')]]);
    const big = await call(s.ctx, s.w.caller)('POST', '/contracts/workflows', {
      name: 'Big deal',
      template_ids: [template.template_id],
      payment: { amount: '1000000.01', currency: 'EUR', project_id: s.w.projectId, payer_role: 'client' },
    });
    expect(issues(big)).toEqual([['body.payment.amount', OVER]]);
  });

  it('invoices refuse a currency that is not one of payment', async () => {
    const staff = (await staffHeaders(s.ctx)).headers;
    const client = await createTestClient(s.ctx, { role: 'owner' });
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/admin/billing/invoices',
      headers: staff,
      payload: {
        client_id: client.clientId,
        currency: 'XPT',
        period_start: '2026-01-01',
        period_end: '2026-01-31',
        lines: [{ description: 'Platform fee', category: 'other', quantity: 1, unit_amount: '10' }],
      },
    });
    expect(issues(res)).toEqual([['body.currency', NOT_PAYMENT('XPT')]]);
  });

  it('an invoice over the maximum gets no payment link, at once and without retries (bank transfer stays)', async () => {
    const platform = await createPaymentWorld(s.ctx);
    const billing = await createTestApp({
      database: s.ctx.deps.database,
      env: { SVC_BILLING_COLLECTION_PROJECT_ID: platform.projectId, SVC_PAYMENT_MAX_AMOUNT: '50.00' },
    });
    try {
      billing.clock.set(s.ctx.clock.now());
      const billed = await createTestClient(billing);
      const call = billingApi(billing);
      await call('PUT', '/billing/details', billed.headers, {
        company_name: 'Billed Co',
        address: { line1: '1 Main St', city: 'Dublin', country: 'IE' },
        billing_email: 'billing@billed.example',
      });
      const staff = (await staffHeaders(billing)).headers;
      const inv = await finalize(
        billing,
        staff,
        (await createDraft(billing, staff, billed.clientId)).invoice_id,
      );
      expect(inv.status).toBe('open');
      expect(inv.payment_link).toEqual({
        state: 'failed',
        attempts: 1,
        last_error: 'Amount must not exceed 50.00 EUR',
      });
      expect(inv.payment_url).toBeNull();
    } finally {
      await billing.close();
    }
  });
});
