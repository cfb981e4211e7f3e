/** A production deployment: no sandbox simulator, no fake success. */

import { count } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idempotencyRecords, transactions } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createPaymentWorld, newKey, type PaymentWorld, paylinkBody } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
    },
  });
  w = await createPaymentWorld(ctx, { productionAccess: true });
});
afterAll(() => ctx?.close());

it('without a payment network (SVC_BANK_PROVIDER=none, the production default), creation answers 503 and writes nothing', async () => {
  expect(ctx.config.bankProvider).toBe('none');
  const key = newKey();
  for (let i = 0; i < 2; i++) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/paylink',
      headers: { ...w.caller.headers, 'x-idempotency-key': key },
      payload: paylinkBody(w),
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: PaymentMessages.paymentNetworkUnavailable });
  }
  const [t] = await ctx.db.select({ n: count() }).from(transactions);
  const [k] = await ctx.db.select({ n: count() }).from(idempotencyRecords);
  expect([t!.n, k!.n]).toEqual([0, 0]);
});

it('the sandbox simulate endpoint is 404 in production', async () => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/sandbox/transactions/01a2013e-0000-7000-8000-000000000000/simulate',
    headers: w.caller.headers,
    payload: { provider_status: 'completed' },
  });
  expect(res.statusCode).toBe(404);
});

it('the sandbox bank pages do not exist in production', async () => {
  expect((await ctx.app.inject({ url: '/sandbox-bank/authorize/trf_x' })).statusCode).toBe(404);
});
