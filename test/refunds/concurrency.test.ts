/**
 * The refunds of a payment never exceed it under concurrency: the creating transaction locks the
 * payment row (FOR UPDATE), so of two refunds of the whole amount sent at once exactly one is
 * created and the other is 409. Runs on PostgreSQL and PGlite (vitest.config.ts BOTH_ENGINES).
 */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { refunds } from '../../src/db/schema/index';
import { RefundMessages } from '../../src/modules/refunds/refunds.messages';
import { paymentApp } from '../helpers/suites';
import { paidPayment, postRefund, readTransaction } from './fixtures';

const s = paymentApp();

it('two parallel full refunds: one 201, one 409, never both', async () => {
  for (let round = 0; round < 3; round++) {
    const id = await paidPayment(s.ctx, s.w, '75.00');
    const answers = await Promise.all([postRefund(s.ctx, s.w.caller, id), postRefund(s.ctx, s.w.caller, id)]);
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes, answers.map((a) => a.body).join('\n')).toEqual([201, 409]);
    const refused = answers.find((a) => a.statusCode === 409)!;
    expect(refused.json().detail).toBe(RefundMessages.nothingLeft('EUR'));
    const rows = await s.ctx.db.select().from(refunds).where(eq(refunds.transactionId, id));
    expect(rows.map((r) => r.amount)).toEqual(['75.00']);
    expect((await readTransaction(s.ctx, s.w.caller, id)).refundable_amount).toBe('0.00');
  }
});

it('parallel partial refunds stop exactly at the amount', async () => {
  const id = await paidPayment(s.ctx, s.w, '10.00');
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => postRefund(s.ctx, s.w.caller, id, { amount: '3.00' })),
  );
  const created = answers.filter((a) => a.statusCode === 201);
  expect(created).toHaveLength(3);
  for (const a of answers.filter((x) => x.statusCode !== 201)) {
    expect(a.statusCode).toBe(422);
    expect(a.json().detail[0].msg).toBe(RefundMessages.exceedsRefundable('1.00', 'EUR'));
  }
  expect((await readTransaction(s.ctx, s.w.caller, id)).refundable_amount).toBe('1.00');
});
