/**
 * Production: the sandbox's sim_fail_ references are ordinary references. Without a payment network
 * (SVC_BANK_PROVIDER=none, the production default) each row fails with the paylink's own 503 answer
 * and nothing is written for it.
 */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { bulkPaymentRows } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { PRODUCTION_ENV } from '../helpers/app';
import { paymentApp } from '../helpers/suites';
import { createJob, drain, getRows, rowFor } from './fixtures';

const suite = paymentApp({ app: { env: { ...PRODUCTION_ENV } }, world: { productionAccess: true } });

it('sim_fail_ references are not simulated: without a network each row fails once with the paylink’s 503 answer', async () => {
  const bank = suite.ctx.deps.providers.bank;
  const original = bank.createSession.bind(bank);
  let calls = 0;
  bank.createSession = async (input) => {
    calls++;
    return original(input);
  };
  const job = await createJob(suite.ctx, suite.w.caller, {
    rows: [rowFor(suite.w, { reference: 'sim_fail_once_a' }), rowFor(suite.w, { reference: 'sim_fail_b' })],
  });
  await drain(suite.ctx);
  expect(calls).toBe(0); // refused before any session is opened
  const rows = await getRows(suite.ctx, suite.w.caller, job.bulk_id);
  // No payment network in this deployment: the paylink use case's own failure, verbatim.
  expect(rows.map((r) => [r.status, r.errors[0]?.msg])).toEqual([
    ['failed', PaymentMessages.paymentNetworkUnavailable],
    ['failed', PaymentMessages.paymentNetworkUnavailable],
  ]);
  const stored = await suite.ctx.db
    .select()
    .from(bulkPaymentRows)
    .where(eq(bulkPaymentRows.bulkId, job.bulk_id));
  expect(stored.every((r) => r.attempts === 1)).toBe(true);
});
