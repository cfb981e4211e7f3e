/** The receiver helper, checked against signatures computed independently with node:crypto. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildEnvelopeBody, signWebhook } from '../../src/outbox/envelope';
import { verifyWebhookSignature } from '../../src/outbox/verify-signature';

const secret = 'whsec_test_secret';
const body = buildEnvelopeBody({
  id: '01900000-0000-7000-8000-000000000001',
  type: 'payment.status_changed',
  occurredAt: new Date('2026-01-15T10:00:00Z'),
  clientId: '01900000-0000-7000-8000-000000000002',
  data: { amount: '1.00', note: 'ünïcode ✓' },
});
const now = new Date('2026-01-15T10:00:00Z');
const ts = Math.floor(now.getTime() / 1000);
const sig = `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;

describe('verifyWebhookSignature', () => {
  it('matches an independent HMAC-SHA256 over timestamp.body', () => {
    expect(signWebhook(secret, ts, body)).toBe(sig);
    expect(body).not.toContain('\n');
    expect(
      verifyWebhookSignature({ secret, rawBody: body, timestamp: String(ts), signature: sig, now }),
    ).toBe(true);
    expect(
      verifyWebhookSignature({
        secret,
        rawBody: Buffer.from(body),
        timestamp: [String(ts)],
        signature: [sig],
        now,
      }),
    ).toBe(true);
  });

  it('rejects a changed body, another secret, a malformed header and a re-serialized body', () => {
    expect(verifyWebhookSignature({ secret, rawBody: `${body} `, timestamp: ts, signature: sig, now })).toBe(
      false,
    );
    expect(
      verifyWebhookSignature({ secret: 'other', rawBody: body, timestamp: ts, signature: sig, now }),
    ).toBe(false);
    expect(
      verifyWebhookSignature({
        secret,
        rawBody: body,
        timestamp: ts,
        signature: sig.replace('sha256=', ''),
        now,
      }),
    ).toBe(false);
    expect(verifyWebhookSignature({ secret, rawBody: body, timestamp: ts, signature: `${sig}00`, now })).toBe(
      false,
    );
    expect(verifyWebhookSignature({ secret, rawBody: body, timestamp: ts, signature: undefined, now })).toBe(
      false,
    );
    expect(
      verifyWebhookSignature({
        secret,
        rawBody: JSON.stringify(JSON.parse(body), null, 2),
        timestamp: ts,
        signature: sig,
        now,
      }),
    ).toBe(false);
  });

  it('rejects timestamps older (or further ahead) than the tolerance, 300 s by default', () => {
    const at = (s: number) => new Date(now.getTime() + s * 1000);
    expect(
      verifyWebhookSignature({ secret, rawBody: body, timestamp: ts, signature: sig, now: at(300) }),
    ).toBe(true);
    expect(
      verifyWebhookSignature({ secret, rawBody: body, timestamp: ts, signature: sig, now: at(301) }),
    ).toBe(false);
    expect(
      verifyWebhookSignature({ secret, rawBody: body, timestamp: ts, signature: sig, now: at(-301) }),
    ).toBe(false);
    expect(
      verifyWebhookSignature({
        secret,
        rawBody: body,
        timestamp: ts,
        signature: sig,
        now: at(400),
        toleranceSeconds: 600,
      }),
    ).toBe(true);
    expect(verifyWebhookSignature({ secret, rawBody: body, timestamp: 'abc', signature: sig, now })).toBe(
      false,
    );
  });
});
