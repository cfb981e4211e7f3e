/**
 * The webhook envelope and its signature. The body is compact JSON built once when the event is
 * written and stored with each delivery, so every attempt sends (and signs) the same bytes.
 */
import type { KeyObject } from 'node:crypto';
import { hmacSha256Hex } from '../shared/crypto';

export interface EnvelopeSource {
  id: string;
  type: string;
  occurredAt: Date;
  clientId: string;
  data: Record<string, unknown>;
}

export function buildEnvelopeBody(e: EnvelopeSource): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    version: 'v1',
    occurred_at: e.occurredAt.toISOString(),
    client_id: e.clientId,
    data: e.data,
  });
}

/** `sha256=<lowercase hex of HMAC-SHA256(secret, timestamp + '.' + body)>` */
export function signWebhook(secret: string | KeyObject, timestamp: number, body: string): string {
  return `sha256=${hmacSha256Hex(secret, `${timestamp}.${body}`)}`;
}

/** The headers every attempt of a delivery sends, before the per-attempt timestamp and signature. */
export function fixedDeliveryHeaders(event: { id: string; type: string }): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'svc-webhooks/1',
    'x-svc-event-id': event.id,
    'x-svc-event-type': event.type,
    'x-svc-event-version': 'v1',
  };
}

export function deliveryHeaders(
  secret: string | KeyObject,
  event: { id: string; type: string },
  body: string,
  timestamp: number,
): Record<string, string> {
  return {
    ...fixedDeliveryHeaders(event),
    'x-svc-timestamp': String(timestamp),
    'x-svc-signature': signWebhook(secret, timestamp, body),
  };
}
