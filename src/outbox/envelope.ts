/**
 * The webhook envelope and its signature. The body is compact JSON built once when the event is
 * written and stored with each delivery, so every attempt sends (and signs) the same bytes.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
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
    'webhook-id': event.id,
  };
}

/**
 * The two keys one endpoint secret yields. `X-SVC-Signature` is keyed with the whole `whsec_…`
 * string (UTF-8). The Standard Webhooks `webhook-signature` is keyed the way that specification and
 * its libraries read a `whsec_` secret: the base64 text after the prefix, decoded (Node's decoder
 * also reads the URL-safe alphabet of secrets made before they were standard base64). A secret
 * without the prefix is used as its own UTF-8 bytes by both schemes.
 */
export interface SigningKeys {
  svc: KeyObject;
  standard: KeyObject;
}

export function signingKeys(secret: string): SigningKeys {
  const svc = createSecretKey(Buffer.from(secret, 'utf8'));
  const standard = secret.startsWith('whsec_')
    ? createSecretKey(Buffer.from(secret.slice('whsec_'.length), 'base64'))
    : svc;
  return { svc, standard };
}

/** `v1,<base64 of HMAC-SHA256(key, "{id}.{timestamp}.{body}")>` (Standard Webhooks). */
export function signStandardWebhook(
  key: KeyObject | Buffer,
  id: string,
  timestamp: number,
  body: string,
): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Every delivery carries both schemes: the spec's `X-SVC-*` headers and the Standard Webhooks
 * `webhook-id` (the envelope's event id, the same on every retry), `webhook-timestamp` and
 * `webhook-signature`, signed at the same moment.
 */
export function deliveryHeaders(
  secret: string | SigningKeys,
  event: { id: string; type: string },
  body: string,
  timestamp: number,
): Record<string, string> {
  const keys = typeof secret === 'string' ? signingKeys(secret) : secret;
  return {
    ...fixedDeliveryHeaders(event),
    'x-svc-timestamp': String(timestamp),
    'x-svc-signature': signWebhook(keys.svc, timestamp, body),
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signStandardWebhook(keys.standard, event.id, timestamp, body),
  };
}
