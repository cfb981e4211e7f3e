/**
 * Standard Webhooks headers on real deliveries (main webhook and a destination) to a local HTTP
 * receiver: the official `standardwebhooks` library verifies them with the endpoint secret as the
 * API returned it, and our own `X-SVC-*` verifier verifies the same request; a changed body, id or
 * secret fails both.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { verifyWebhookSignature } from '../../src/outbox/verify-signature';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { type ReceivedRequest, type Receiver, startReceiver } from '../helpers/receiver';
import { emitTestEvent, setMainWebhook } from '../helpers/webhooks';

let ctx: TestContext;
let rx: Receiver;
let dispatcher: DeliveryDispatcher;

beforeAll(async () => {
  ctx = await createTestApp();
  rx = await startReceiver();
  dispatcher = createDeliveryDispatcher(ctx.deps);
});
afterAll(async () => {
  await dispatcher.close();
  await rx.close();
  await ctx.close();
});

const flat = (req: ReceivedRequest): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
  );

function expectBothSchemesVerify(req: ReceivedRequest, secret: string, eventId: string) {
  const h = flat(req);
  expect(h['webhook-id']).toBe(eventId);
  expect(h['webhook-timestamp']).toBe(h['x-svc-timestamp']);
  expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  const verified = new Webhook(secret).verify(req.rawBody, h) as { id: string };
  expect(verified.id).toBe(eventId);
  expect(
    verifyWebhookSignature({
      secret,
      rawBody: req.rawBody,
      timestamp: h['x-svc-timestamp'],
      signature: h['x-svc-signature'],
    }),
  ).toBe(true);
  // Tampering is caught by the library too (it does verify, not just parse).
  expect(() => new Webhook(secret).verify(`${req.rawBody} `, h)).toThrow(WebhookVerificationError);
  expect(() => new Webhook(secret).verify(req.rawBody, { ...h, 'webhook-id': 'evt_other' })).toThrow(
    WebhookVerificationError,
  );
  const other = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  expect(() => new Webhook(other).verify(req.rawBody, h)).toThrow(WebhookVerificationError);
}

describe('Standard Webhooks headers', () => {
  it('a main-webhook delivery verifies with the standardwebhooks library and the X-SVC verifier', async () => {
    const c = await createTestClient(ctx);
    await setMainWebhook(ctx, c.clientId, `${rx.url}/main`);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/subscription/secret',
      headers: c.headers,
    });
    expect(res.statusCode).toBe(200);
    const secret: string = res.json().webhook_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const ev = await emitTestEvent(ctx, c.clientId, 'payment.status_changed', {
      transaction_id: 'tx-std',
      amount: '12.30',
    });
    await dispatcher.drain();
    const [req] = rx.on('/main');
    expect(req).toBeDefined();
    expectBothSchemesVerify(req!, secret, ev!.id);
  });

  it('a destination delivery is signed with the destination secret in both schemes', async () => {
    const c = await createTestClient(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/destinations',
      headers: c.headers,
      payload: { url: `${rx.url}/destination`, event_types: ['payment.status_changed'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const secret: string = res.json().secret;
    const ev = await emitTestEvent(ctx, c.clientId, 'payment.status_changed', { transaction_id: 'tx-d' });
    await dispatcher.drain();
    const [req] = rx.on('/destination');
    expect(req).toBeDefined();
    expectBothSchemesVerify(req!, secret, ev!.id);
  });
});
