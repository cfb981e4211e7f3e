/**
 * The SDK's `WebhookEvent` union: `switch (event.type)` narrows `event.data` to that event type's
 * fields and status enums (the `expectTypeOf` checks are compile-time: `npm run typecheck` fails
 * when narrowing breaks), its event types are exactly the service's, and `constructEvent` accepts a
 * delivery signed with the X-SVC headers or with the Standard Webhooks headers alone.
 */
import { createHmac } from 'node:crypto';
import {
  constructEvent,
  type PaymentStatusChangedEvent,
  verifyWebhookSignature,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventType,
} from '@svc/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { buildEnvelopeBody, deliveryHeaders } from '../../src/outbox/envelope';
import { EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../src/outbox/event-types';

/** What a receiver does with each event: returns the narrowed field it read. */
function handle(event: WebhookEvent): string {
  switch (event.type) {
    case 'payment.status_changed':
      expectTypeOf(event.data.current_payment_status).toEqualTypeOf<
        'pending' | 'processing' | 'success' | 'failed' | 'expired' | 'canceled'
      >();
      expectTypeOf(event.data.amount).toEqualTypeOf<string>();
      expectTypeOf(event.data.transaction_id).toEqualTypeOf<string>();
      return event.data.current_payment_status;
    case 'kyb.status_changed':
      expectTypeOf(event.data.current_kyb_status).toEqualTypeOf<
        'none' | 'pending' | 'approved' | 'rejected' | 'on_hold'
      >();
      // @ts-expect-error a payment field is not on a KYB event
      void event.data.transaction_id;
      return event.data.current_kyb_status;
    case 'webhook.test':
      expectTypeOf(event.data.message).toEqualTypeOf<string>();
      return event.data.message;
    default:
      expectTypeOf(event.type).toEqualTypeOf<
        Exclude<WebhookEventType, 'payment.status_changed' | 'kyb.status_changed' | 'webhook.test'>
      >();
      return event.type;
  }
}

describe('WebhookEvent', () => {
  it('is keyed on type; the envelope fields are always present', () => {
    expectTypeOf<WebhookEvent['type']>().toEqualTypeOf<WebhookEventType>();
    expectTypeOf<WebhookEvent['id']>().toEqualTypeOf<string>();
    expectTypeOf<WebhookEvent['occurred_at']>().toEqualTypeOf<string>();
    expectTypeOf<PaymentStatusChangedEvent['data']['previous_payment_status']>().toEqualTypeOf<
      'pending' | 'processing' | 'success' | 'failed' | 'expired' | 'canceled'
    >();
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual([...EVENT_TYPES, ...SYSTEM_EVENT_TYPES].sort());
  });

  it('constructEvent returns the narrowed event from X-SVC or Standard Webhooks headers', async () => {
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const body = buildEnvelopeBody({
      id: '0190f5f5-1111-7aaa-8bbb-cccccccccccc',
      type: 'webhook.test',
      occurredAt: new Date(),
      clientId: '0190f5f5-2222-7aaa-8bbb-cccccccccccc',
      data: { message: 'hello', requested_by_account_id: null },
    });
    const ts = Math.floor(Date.now() / 1000);
    const all = deliveryHeaders(
      secret,
      { id: '0190f5f5-1111-7aaa-8bbb-cccccccccccc', type: 'webhook.test' },
      body,
      ts,
    );
    const standardOnly = Object.fromEntries(Object.entries(all).filter(([k]) => !k.startsWith('x-svc-')));
    for (const headers of [all, standardOnly])
      expect(handle(await constructEvent(body, headers, secret))).toBe('hello');
    // A Standard Webhooks header with a rotated-out signature first and the valid one second.
    const wrong = createHmac('sha256', 'x').update('y').digest('base64');
    const several = { ...standardOnly, 'webhook-signature': `v1,${wrong} ${all['webhook-signature']}` };
    expect(await verifyWebhookSignature(body, several, secret)).toBe(true);
    expect(await verifyWebhookSignature(`${body} `, standardOnly, secret)).toBe(false);
    expect(await verifyWebhookSignature(body, { ...standardOnly, 'webhook-id': 'other' }, secret)).toBe(
      false,
    );
    expect(await verifyWebhookSignature(body, standardOnly, secret, { now: (ts + 301) * 1000 })).toBe(false);
    expect(
      await verifyWebhookSignature(body, standardOnly, `whsec_${Buffer.alloc(32, 4).toString('base64')}`),
    ).toBe(false);
  });
});
