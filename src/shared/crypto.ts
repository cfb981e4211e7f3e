/**
 * Small crypto helpers: authenticated encryption for data at rest, keyed hashes for stored
 * secrets, HMAC signatures and constant-time comparison. Keys come from `Secrets`.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

export interface Secrets {
  /** Signs access tokens (HS256). */
  jwtKey: Uint8Array;
  /** AES-256-GCM key for data at rest. */
  encryptionKey: Buffer;
  /** HMAC key for hashes of stored secrets (API secrets, refresh tokens, codes). */
  hashKey: Buffer;
  /** Shared secret of the sandbox provider simulators' signed notifications. */
  providerWebhookSecret: string;
}

/** Derives the independent keys from the two configured root secrets. */
export function deriveSecrets(
  jwtSecret: string,
  dataKeyB64: string,
  providerWebhookSecret?: string | null,
): Secrets {
  const root = Buffer.from(dataKeyB64, 'base64');
  const sub = (info: string) => Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), info, 32));
  return {
    jwtKey: new TextEncoder().encode(jwtSecret),
    encryptionKey: sub('svc/encryption/v1'),
    hashKey: sub('svc/keyed-hash/v1'),
    providerWebhookSecret: providerWebhookSecret ?? sub('svc/provider-webhook/v1').toString('hex'),
  };
}

/** Encrypts a UTF-8 string: `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encrypt(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ct.toString('base64url'),
  ].join('.');
}

export function decrypt(key: Buffer, sealed: string): string {
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/** Keyed hash (HMAC-SHA256, hex) for secrets we only ever need to compare, never read back. */
export function keyedHash(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

export function hmacSha256Hex(secret: string | Buffer | KeyObject, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Constant-time string equality (length differences leak only the length). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
