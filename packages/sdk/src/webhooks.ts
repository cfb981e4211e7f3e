/**
 * Receiver-side webhook verification on the raw body, with WebCrypto (Node 20+ and browsers).
 * The same rules as the service's own src/outbox/verify-signature.ts: `X-SVC-Signature` is
 * `sha256=` + lowercase hex of HMAC-SHA256(secret, `<X-SVC-Timestamp>.<raw body>`), the key being
 * the whole `whsec_…` string; the timestamp must be within the tolerance (default 300 s).
 */
import type { components, webhooks } from './generated/schema';

type Envelope = components['schemas']['WebhookEnvelope'];
type DeliveryBody<K extends keyof webhooks> = webhooks[K]['post'] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** Every event type the service delivers (the OpenAPI `webhooks` section). */
export type WebhookEventType = keyof webhooks;

/** The envelope of one event type, with its typed `data`. */
export type WebhookEventOf<K extends WebhookEventType> = Omit<Envelope, 'type' | 'data'> & {
  type: K;
  data: NonNullable<DeliveryBody<K> extends { data?: infer D } ? D : never>;
};

/** Any delivered event; narrow on `type`. */
export type WebhookEvent = { [K in WebhookEventType]: WebhookEventOf<K> }[WebhookEventType];

/** `Headers`, or a plain object such as Node's `IncomingHttpHeaders` (any key case). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined | null>;

export interface VerifyOptions {
  /** Maximum age (and future skew) of X-SVC-Timestamp in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time (tests). Default: now. */
  now?: Date | number;
}

export class SvcWebhookSignatureError extends Error {
  override readonly name = 'SvcWebhookSignatureError';
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>))
    if (k.toLowerCase() === name) return (Array.isArray(v) ? v[0] : v) ?? undefined;
  return undefined;
}

const utf8 = new TextEncoder();
const bytesOf = (raw: string | Uint8Array | ArrayBuffer): Uint8Array =>
  typeof raw === 'string' ? utf8.encode(raw) : raw instanceof Uint8Array ? raw : new Uint8Array(raw);

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Equal length and content, in time independent of where they differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * True when `X-SVC-Signature` matches the raw body (string, Buffer or bytes exactly as received,
 * never re-serialized JSON) and `X-SVC-Timestamp` is fresh. Asynchronous because WebCrypto is.
 */
export async function verifyWebhookSignature(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  secret: string,
  opts: VerifyOptions = {},
): Promise<boolean> {
  const ts = header(headers, 'x-svc-timestamp')?.trim();
  const sig = header(headers, 'x-svc-signature')?.trim();
  if (!ts || !sig || !secret || !/^\d{1,12}$/.test(ts)) return false;
  const now =
    opts.now === undefined ? Date.now() : typeof opts.now === 'number' ? opts.now : opts.now.getTime();
  if (Math.abs(Math.floor(now / 1000) - Number(ts)) > (opts.toleranceSeconds ?? 300)) return false;
  const m = /^sha256=([0-9a-f]{64})$/.exec(sig);
  if (!m) return false;
  const key = await crypto.subtle.importKey(
    'raw',
    utf8.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const prefix = utf8.encode(`${ts}.`);
  const body = bytesOf(rawBody);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
  return constantTimeEqual(expected, hexToBytes(m[1]!));
}

/** Verifies the delivery and returns its typed event; throws SvcWebhookSignatureError when it fails. */
export async function constructEvent(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  secret: string,
  opts: VerifyOptions = {},
): Promise<WebhookEvent> {
  if (!(await verifyWebhookSignature(rawBody, headers, secret, opts)))
    throw new SvcWebhookSignatureError('Webhook signature or timestamp is invalid');
  const text = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(bytesOf(rawBody));
  return JSON.parse(text) as WebhookEvent;
}
