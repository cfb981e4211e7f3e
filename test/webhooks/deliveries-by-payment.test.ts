/** GET /webhooks/deliveries?transaction_id: the deliveries of one payment's events (the dashboard's payment page). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { setMainWebhook } from '../helpers/webhooks';
import { createPaylink, createPaymentWorld, type PaymentWorld } from '../payments/fixtures';

let ctx: TestContext;
let w: PaymentWorld;

beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx, { callbackUrl: 'https://merchant.example.com/return' });
  await setMainWebhook(ctx, w.caller.clientId, 'https://merchant.example.com/hooks');
});
afterAll(() => ctx.close());

const outcome = (id: string, value: 'success' | 'failed') =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/transactions/${id}/simulate`,
    headers: w.caller.headers,
    payload: { outcome: value },
  });

const deliveriesOf = (headers: Record<string, string>, transactionId: string) =>
  ctx.app.inject({ url: `/api/v1/webhooks/deliveries?transaction_id=${transactionId}`, headers });

describe('deliveries of one payment', () => {
  it('lists only the deliveries of that payment, and nothing for another client', async () => {
    const paid = await createPaylink(ctx, w);
    const other = await createPaylink(ctx, w);
    expect((await outcome(paid.transaction_id, 'success')).statusCode).toBe(200);
    expect((await outcome(other.transaction_id, 'failed')).statusCode).toBe(200);

    const res = await deliveriesOf(w.caller.headers, paid.transaction_id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    // The sandbox bank walks the payment through its detail statuses: one event per coarse move.
    expect(body.deliveries.map((d: { event_status: string }) => d.event_status)).toEqual([
      'success',
      'processing',
    ]);
    expect(body.deliveries[0]).toMatchObject({
      event_type: 'payment.status_changed',
      event_status: 'success',
      url: 'https://merchant.example.com/hooks',
    });
    const all = (
      await ctx.app.inject({ url: '/api/v1/webhooks/deliveries', headers: w.caller.headers })
    ).json();
    expect(all.deliveries.map((d: { event_status: string }) => d.event_status)).toContain('failed');

    const stranger = await createTestClient(ctx);
    expect((await deliveriesOf(stranger.headers, paid.transaction_id)).json()).toMatchObject({
      total: 0,
      deliveries: [],
    });
  });

  it('rejects a transaction_id that is not a UUID (422)', async () => {
    expect((await deliveriesOf(w.caller.headers, 'nope')).statusCode).toBe(422);
  });
});
