/** GET /webhooks/deliveries?transaction_id: the deliveries of one payment's events (the dashboard's payment page). */
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { setMainWebhook } from '../helpers/webhooks';
import { createPaylink } from '../payments/fixtures';

const s = paymentApp({ world: { callbackUrl: 'https://merchant.example.com/return' } });

beforeAll(async () => {
  await setMainWebhook(s.ctx, s.w.caller.clientId, 'https://merchant.example.com/hooks');
});

const outcome = (id: string, value: 'success' | 'failed') =>
  s.ctx.app.inject({
    method: 'POST',
    url: `/api/v1/sandbox/transactions/${id}/simulate`,
    headers: s.w.caller.headers,
    payload: { outcome: value },
  });

const deliveriesOf = (headers: Record<string, string>, transactionId: string) =>
  s.ctx.app.inject({ url: `/api/v1/webhooks/deliveries?transaction_id=${transactionId}`, headers });

describe('deliveries of one payment', () => {
  it('lists only the deliveries of that payment, and nothing for another client', async () => {
    const paid = await createPaylink(s.ctx, s.w);
    const other = await createPaylink(s.ctx, s.w);
    expect((await outcome(paid.transaction_id, 'success')).statusCode).toBe(200);
    expect((await outcome(other.transaction_id, 'failed')).statusCode).toBe(200);

    const res = await deliveriesOf(s.w.caller.headers, paid.transaction_id);
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
      await s.ctx.app.inject({ url: '/api/v1/webhooks/deliveries', headers: s.w.caller.headers })
    ).json();
    expect(all.deliveries.map((d: { event_status: string }) => d.event_status)).toContain('failed');

    const stranger = await createTestClient(s.ctx);
    expect((await deliveriesOf(stranger.headers, paid.transaction_id)).json()).toMatchObject({
      total: 0,
      deliveries: [],
    });
  });

  it('rejects a transaction_id that is not a UUID (422)', async () => {
    expect((await deliveriesOf(s.w.caller.headers, 'nope')).statusCode).toBe(422);
  });
});
