/**
 * Signature scheme of every provider's inbound notifications (payment network, verification
 * provider): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, compared in constant time,
 * rejected when the timestamp is more than 300 s away from now (replay window).
 */
import { hmacSha256Hex, safeEqual } from '../shared/crypto';

export const PROVIDER_SIGNATURE_TOLERANCE_SECONDS = 300;

export function signProviderPayload(secret: string, rawBody: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${hmacSha256Hex(secret, `${t}.${rawBody}`)}`;
}

export function verifyProviderSignature(
  secret: string,
  rawBody: string,
  header: string | undefined,
  now: Date,
  toleranceSeconds = PROVIDER_SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = new Map<string, string>();
  for (const p of header.split(',')) {
    const i = p.indexOf('=');
    if (i > 0) parts.set(p.slice(0, i).trim(), p.slice(i + 1).trim());
  }
  const t = parts.get('t');
  const v1 = parts.get('v1');
  if (!t || !v1 || !/^\d{1,12}$/.test(t)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(t)) > toleranceSeconds) return false;
  return safeEqual(hmacSha256Hex(secret, `${t}.${rawBody}`), v1);
}
