/** Signature of the bank network's notifications: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
import { hmacSha256Hex, safeEqual } from '../../shared/crypto';
import { BANK_SIGNATURE_TOLERANCE_SECONDS } from './port';

export function signBankPayload(secret: string, rawBody: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${hmacSha256Hex(secret, `${t}.${rawBody}`)}`;
}

export function verifyBankSignature(
  secret: string,
  rawBody: string,
  header: string | undefined,
  now: Date,
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
  if (Math.abs(now.getTime() / 1000 - Number(t)) > BANK_SIGNATURE_TOLERANCE_SECONDS) return false;
  return safeEqual(hmacSha256Hex(secret, `${t}.${rawBody}`), v1);
}
