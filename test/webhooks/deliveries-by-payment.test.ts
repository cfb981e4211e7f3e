/** GET /webhooks/deliveries?transaction_id: the deliveries of one payment's events (the dashboard's payment page). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { setMainWebhook } from '../helpers/webhooks';
import { createPaylink, createPaymentWorld, type PaymentWorld, simulate } from '../payments/fixtures';

let ctx: TestContext;
let w: PaymentWorld;

beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx, { callbackUrl: 'https://merchant.example.com/return' });
  await setMainWebhook(ctx, w.caller.clientId, 'https://merchant.example.com/hooks');
});
afterAll(() => ctx.close());

const deliveriesOf = (headers: Record<string, string>, transactionId: string) =>
  ctx.app.inject({ url: `/api/v1/webhooks/deliveries?transaction_id=${transactionId}`, headers });

describe('deliveries of one payment', () => {
  it('lists only the deliveries of that payment, and nothing for another client', async () => {
    const paid = await createPaylink(ctx, w);
    const other = await createPaylink(ctx, w);
    expect((await simulate(ctx, w, paid.transaction_id, 'completed')).statusCode).toBe(200);
    expect((await simulate(ctx, w, other.transaction_id, 'rejected')).statusCode).toBe(200);

    const res = await deliveriesOf(w.caller.headers, paid.transaction_id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(1);
    expect(body.deliveries).toMatchObject([
      { event_type: 'payment.status_changed', url: 'https://merchant.example.com/hooks' },
    ]);
    const all = (
      await ctx.app.inject({ url: '/api/v1/webhooks/deliveries', headers: w.caller.headers })
    ).json();
    expect(all.total).toBe(2);

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
