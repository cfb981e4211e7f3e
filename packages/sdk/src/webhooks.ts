/**
 * Receiver-side webhook verification on the raw body, with WebCrypto (Node 20+ and browsers).
 * Deliveries carry two signatures over the same bytes; either one proves the delivery:
 * - `X-SVC-Signature`: `sha256=` + lowercase hex of HMAC-SHA256(secret, `<X-SVC-Timestamp>.<raw body>`),
 *   the key being the whole `whsec_…` string (the service's src/outbox/verify-signature.ts);
 * - Standard Webhooks `webhook-signature`: space-separated `v1,<base64>` entries of
 *   HMAC-SHA256(key, `<webhook-id>.<webhook-timestamp>.<raw body>`), the key being the base64
 *   text after `whsec_`, decoded.
 * The timestamp must be within the tolerance (default 300 s).
 */
import type { WebhookEvent } from './generated/webhook-events.js';

export type {
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
} from './generated/webhook-events.js';
export { WEBHOOK_EVENT_TYPES } from './generated/webhook-events.js';

/** `Headers`, or a plain object such as Node's `IncomingHttpHeaders` (any key case). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined | null>;

export interface VerifyOptions {
  /** Maximum age (and future skew) of the signing timestamp in seconds. Default 300. */
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

const fresh = (ts: string, opts: VerifyOptions): boolean => {
  if (!/^\d{1,12}$/.test(ts)) return false;
  const now =
    opts.now === undefined ? Date.now() : typeof opts.now === 'number' ? opts.now : opts.now.getTime();
  return Math.abs(Math.floor(now / 1000) - Number(ts)) <= (opts.toleranceSeconds ?? 300);
};

async function hmac(key: Uint8Array<ArrayBuffer>, prefix: string, body: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const head = utf8.encode(prefix);
  const signed = new Uint8Array(head.length + body.length);
  signed.set(head);
  signed.set(body, head.length);
  return new Uint8Array(await crypto.subtle.sign('HMAC', k, signed));
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const std = text.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(std.padEnd(Math.ceil(std.length / 4) * 4, '='));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** The Standard Webhooks key of a secret: the base64 after `whsec_`, decoded (else its UTF-8 bytes). */
const standardKey = (secret: string): Uint8Array<ArrayBuffer> | null =>
  secret.startsWith('whsec_') ? base64ToBytes(secret.slice('whsec_'.length)) : utf8.encode(secret);

async function verifySvc(body: Uint8Array, headers: HeadersLike, secret: string, opts: VerifyOptions) {
  const ts = header(headers, 'x-svc-timestamp')?.trim();
  const sig = header(headers, 'x-svc-signature')?.trim();
  if (!ts || !sig || !fresh(ts, opts)) return false;
  const m = /^sha256=([0-9a-f]{64})$/.exec(sig);
  if (!m) return false;
  return constantTimeEqual(await hmac(utf8.encode(secret), `${ts}.`, body), hexToBytes(m[1]!));
}

async function verifyStandard(body: Uint8Array, headers: HeadersLike, secret: string, opts: VerifyOptions) {
  const id = header(headers, 'webhook-id')?.trim();
  const ts = header(headers, 'webhook-timestamp')?.trim();
  const sigs = header(headers, 'webhook-signature')?.trim();
  const key = standardKey(secret);
  if (!id || !ts || !sigs || !key || !fresh(ts, opts)) return false;
  const expected = await hmac(key, `${id}.${ts}.`, body);
  return sigs.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    const given = version === 'v1' && value ? base64ToBytes(value) : null;
    return given !== null && constantTimeEqual(expected, given);
  });
}

/**
 * True when the delivery's signature matches the raw body (string, Buffer or bytes exactly as
 * received, never re-serialized JSON) and its timestamp is fresh: the `X-SVC-*` headers when the
 * request has them, else the Standard Webhooks headers. Asynchronous because WebCrypto is.
 */
export async function verifyWebhookSignature(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  secret: string,
  opts: VerifyOptions = {},
): Promise<boolean> {
  if (!secret) return false;
  const body = bytesOf(rawBody);
  return header(headers, 'x-svc-signature') !== undefined
    ? verifySvc(body, headers, secret, opts)
    : verifyStandard(body, headers, secret, opts);
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
