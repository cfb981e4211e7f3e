/**
 * Receiver-side verification of a webhook delivery, for merchants (and our own tests):
 *
 *   import { verifyWebhookSignature } from './verify-signature';
 *   app.post('/webhooks', { config: { rawBody: true } }, (req, reply) => {
 *     const ok = verifyWebhookSignature({
 *       secret: process.env.SVC_WEBHOOK_SECRET!,
 *       rawBody: req.rawBody,                         // the bytes as received, not re-serialized JSON
 *       timestamp: req.headers['x-svc-timestamp'],
 *       signature: req.headers['x-svc-signature'],
 *     });
 *     if (!ok) return reply.code(400).send();
 *     // deduplicate on the envelope id, order by occurred_at
 *   });
 *
 * Depends on node:crypto only, so it can be copied as is into a receiver.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VerifyWebhookInput {
  /** The endpoint's signing secret (whsec_...). */
  secret: string;
  /** The request body exactly as received. */
  rawBody: string | Buffer | Uint8Array;
  /** Value of X-SVC-Timestamp (Unix seconds). */
  timestamp: string | string[] | number | undefined | null;
  /** Value of X-SVC-Signature (`sha256=<hex>`). */
  signature: string | string[] | undefined | null;
  /** Maximum age (and future skew) accepted, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current time, for tests. Default: now. */
  now?: Date;
}

const first = <T>(v: T | T[] | undefined | null): T | undefined =>
  Array.isArray(v) ? v[0] : (v ?? undefined);

/** True when the signature matches the raw body and the timestamp is fresh. Constant-time comparison. */
export function verifyWebhookSignature(input: VerifyWebhookInput): boolean {
  const ts = first(input.timestamp);
  const sig = first(input.signature);
  if (ts === undefined || sig === undefined) return false;
  const tsText = String(ts).trim();
  if (!/^\d{1,12}$/.test(tsText)) return false;
  const tolerance = input.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(tsText)) > tolerance) return false;
  const m = /^sha256=([0-9a-f]{64})$/.exec(sig.trim());
  if (!m) return false;
  const body =
    typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : Buffer.from(input.rawBody);
  const expected = createHmac('sha256', input.secret)
    .update(Buffer.concat([Buffer.from(`${tsText}.`, 'utf8'), body]))
    .digest();
  const given = Buffer.from(m[1]!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
