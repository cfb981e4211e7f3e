/**
 * Access tokens: HS256 JWTs carrying the spec's claims (sub, type, actor_type, role,
 * account_id, exp) plus environment, a token id (jti) and, for custom credentials, permissions.
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../../../config';
import { newId } from '../../../shared/ids';
import type { Permission, Role } from '../team/permissions.policy';

export type ClientTokenType = 'client_access' | 'client_api_access';
export type ActorType = 'client_user' | 'client_api';

export interface ClientTokenClaims {
  sub: string;
  type: ClientTokenType;
  actor_type: ActorType;
  role: Role;
  account_id?: string;
  /** Login session (refresh-token family) of a dashboard token. */
  sid?: string;
  credential_id?: string;
  /** Generation of the credential when the token was minted (see api_credentials.token_generation). */
  gen?: number;
  permissions?: Permission[];
  environment: Environment;
  jti: string;
  exp: number;
  iat: number;
}

export interface StaffTokenClaims {
  sub: string;
  type: 'staff_access';
  actor_type: 'service_internal';
  environment: Environment;
  jti: string;
  exp: number;
  iat: number;
}

export type AnyTokenClaims = ClientTokenClaims | StaffTokenClaims;

export interface SignedToken {
  token: string;
  jti: string;
  expiresAt: Date;
}

const hmacKeyObjects = new WeakMap<Uint8Array, KeyObject>();

/** A KeyObject made once per secret (making one per call costs more than the HMAC itself). */
function hmacKey(key: Uint8Array): KeyObject {
  let k = hmacKeyObjects.get(key);
  if (!k) {
    k = createSecretKey(key);
    hmacKeyObjects.set(key, k);
  }
  return k;
}

const JWT_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * An HS256 JWS in compact form, signed with node:crypto's HMAC: jose signs only through WebCrypto,
 * whose per-call job (algorithm normalisation, a thread-pool job and its promise) was the largest
 * cost of a login's main thread besides the database (issue 12 profile), and queues behind argon2
 * on the same thread pool. Same output as jose's SignJWT with the protected header
 * {alg: HS256, typ: JWT}: claims, then sub, jti, iat and exp.
 */
export async function signToken(
  key: Uint8Array,
  claims: Omit<ClientTokenClaims, 'jti' | 'exp' | 'iat'> | Omit<StaffTokenClaims, 'jti' | 'exp' | 'iat'>,
  ttlSeconds: number,
  now: Date,
): Promise<SignedToken> {
  const jti = newId();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const { sub, ...rest } = claims;
  const payload = Buffer.from(JSON.stringify({ ...rest, sub, jti, iat, exp })).toString('base64url');
  const signingInput = `${JWT_HEADER}.${payload}`;
  const signature = createHmac('sha256', hmacKey(key)).update(signingInput).digest('base64url');
  return { token: `${signingInput}.${signature}`, jti, expiresAt: new Date(exp * 1000) };
}

/** Verifies signature and expiry against `now`; returns null for any invalid token. */
export async function verifyToken(key: Uint8Array, token: string, now: Date): Promise<AnyTokenClaims | null> {
  return (await verifyTokenWithReason(key, token, now)).claims;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
function jsonObjectOf(part: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const isNumericDate = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v));

/**
 * Like verifyToken, and says whether a refused token was well signed but expired (RFC 6750 hint).
 * HS256 is checked with node:crypto's HMAC and a KeyObject made once per secret: jose can only
 * verify through WebCrypto, whose per-call job was about 15% of an authenticated read's main
 * thread (issue 12 profile). Same rules as jose's jwtVerify with algorithms ['HS256'] and required
 * sub, exp, jti: a JSON object header with alg HS256 and no crit or b64; a JSON object claims set;
 * numeric exp, nbf and iat; nbf not in the future; exp after now (else expired).
 */
export async function verifyTokenWithReason(
  key: Uint8Array,
  token: string,
  now: Date,
): Promise<{ claims: AnyTokenClaims | null; expired: boolean }> {
  const invalid = { claims: null, expired: false };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) return invalid;
  const [h, p, sig] = parts as [string, string, string];
  const header = jsonObjectOf(h);
  if (header?.alg !== 'HS256' || Object.hasOwn(header, 'crit') || Object.hasOwn(header, 'b64'))
    return invalid;
  const expected = createHmac('sha256', hmacKey(key)).update(`${h}.${p}`).digest();
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  const payload = jsonObjectOf(p);
  if (!payload || !['sub', 'exp', 'jti'].every((c) => Object.hasOwn(payload, c))) return invalid;
  if (!isNumericDate(payload.exp) || !isNumericDate(payload.nbf) || !isNumericDate(payload.iat))
    return invalid;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (payload.nbf !== undefined && (payload.nbf as number) > nowSeconds) return invalid;
  if ((payload.exp as number) <= nowSeconds) return { claims: null, expired: true };
  if (typeof payload.type !== 'string' || typeof payload.environment !== 'string') return invalid;
  return { claims: payload as unknown as AnyTokenClaims, expired: false };
}
