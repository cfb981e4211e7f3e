/**
 * Production: the sandbox's sim_fail_ references are ordinary references. Without a payment network
 * (SVC_BANK_PROVIDER=none, the production default) each row fails with the paylink's own 503 answer
 * and nothing is written for it.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bulkPaymentRows } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { createJob, drain, getRows, rowFor } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp({ env: { ...PRODUCTION_ENV } });
  w = await createPaymentWorld(ctx, { productionAccess: true });
});
afterAll(() => ctx?.close());

it('sim_fail_ references are not simulated: without a network each row fails once with the paylink’s 503 answer', async () => {
  const bank = ctx.deps.providers.bank;
  const original = bank.createSession.bind(bank);
  let calls = 0;
  bank.createSession = async (input) => {
    calls++;
    return original(input);
  };
  const job = await createJob(ctx, w.caller, {
    rows: [rowFor(w, { reference: 'sim_fail_once_a' }), rowFor(w, { reference: 'sim_fail_b' })],
  });
  await drain(ctx);
  expect(calls).toBe(0); // refused before any session is opened
  const rows = await getRows(ctx, w.caller, job.bulk_id);
  // No payment network in this deployment: the paylink use case's own failure, verbatim.
  expect(rows.map((r) => [r.status, r.errors[0]?.msg])).toEqual([
    ['failed', PaymentMessages.paymentNetworkUnavailable],
    ['failed', PaymentMessages.paymentNetworkUnavailable],
  ]);
  const stored = await ctx.db.select().from(bulkPaymentRows).where(eq(bulkPaymentRows.bulkId, job.bulk_id));
  expect(stored.every((r) => r.attempts === 1)).toBe(true);
});
