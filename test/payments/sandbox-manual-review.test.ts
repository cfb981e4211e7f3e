/**
 * The sandbox trap: a raw `completed` on a pending payment is out of order and holds it for manual
 * review (status pending, an event with equal statuses). The sandbox resolves the review through the
 * same simulate route: an `outcome` walks the in-order steps, clears the review and sends the
 * status events; `insufficient_funds` is one of the outcomes a tester means.
 */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/index';
import { paymentApp } from '../helpers/suites';
import { createPaylink } from './fixtures';

const s = paymentApp();

const simulate = (id: string, body: object) =>
  s.ctx.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/transactions/${id}/simulate`,
    headers: s.w.caller.headers,
    payload: body,
  });

async function statusChanges(id: string) {
  const rows = await s.ctx.db
    .select()
    .from(events)
    .where(and(eq(events.type, 'payment.status_changed'), sql`${events.data}->>'transaction_id' = ${id}`))
    .orderBy(events.createdAt, events.id);
  return rows.map((e) => {
    const d = e.data as Record<string, unknown>;
    return [d.previous_payment_status, d.current_payment_status, d.reconciliation_state];
  });
}

describe('manual review in the sandbox', () => {
  it('an out-of-order completed holds the payment; outcome success resolves it with the events', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const held = await simulate(t.transaction_id, { provider_status: 'completed' });
    expect(held.json()).toMatchObject({ status: 'pending', reconciliation_state: 'manual_review_required' });
    const resolved = await simulate(t.transaction_id, { outcome: 'success' });
    expect(resolved.statusCode, resolved.body).toBe(200);
    expect(resolved.json()).toMatchObject({
      status: 'success',
      provider_status: 'completed',
      reconciliation_state: 'none',
    });
    expect(await statusChanges(t.transaction_id)).toEqual([
      ['pending', 'pending', 'manual_review_required'],
      ['pending', 'processing', 'none'],
      ['processing', 'success', 'none'],
    ]);
  });

  it('a review asked for while processing is resolved by the final outcome', async () => {
    const t = await createPaylink(s.ctx, s.w);
    await simulate(t.transaction_id, { provider_status: 'awaiting_bank_authorization' });
    const held = await simulate(t.transaction_id, { provider_status: 'manual_review' });
    expect(held.json()).toMatchObject({
      status: 'processing',
      reconciliation_state: 'manual_review_required',
    });
    const res = await simulate(t.transaction_id, { outcome: 'failed' });
    expect(res.json()).toMatchObject({
      status: 'failed',
      provider_status: 'rejected',
      reconciliation_state: 'none',
    });
  });

  it('offers insufficient funds as an outcome', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const res = await simulate(t.transaction_id, { outcome: 'insufficient_funds' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'failed',
      provider_status: 'rejected_insufficient_funds',
      reconciliation_state: 'none',
    });
  });
});
