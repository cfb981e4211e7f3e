/**
 * Access tokens: HS256 JWTs carrying the spec's claims (sub, type, actor_type, role,
 * account_id, exp) plus environment, a token id (jti) and, for custom credentials, permissions.
 */
import { webcrypto } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Environment } from '../../config';
import { newId } from '../../shared/ids';
import type { Permission, Role } from './permissions';

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

/**
 * The HMAC key imported once per secret: given raw bytes, jose imports a WebCrypto key on every
 * sign and verify, which was the largest cost of an authenticated read.
 */
const importedKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>();
function hmacKey(key: Uint8Array): Promise<webcrypto.CryptoKey> {
  let k = importedKeys.get(key);
  if (!k) {
    k = webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    importedKeys.set(key, k);
  }
  return k;
}

export interface SignedToken {
  token: string;
  jti: string;
  expiresAt: Date;
}

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
  const token = await new SignJWT({ ...rest })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await hmacKey(key));
  return { token, jti, expiresAt: new Date(exp * 1000) };
}

/** Verifies signature and expiry against `now`; returns null for any invalid token. */
export async function verifyToken(key: Uint8Array, token: string, now: Date): Promise<AnyTokenClaims | null> {
  return (await verifyTokenWithReason(key, token, now)).claims;
}

/** Like verifyToken, and says whether a refused token was well signed but expired (RFC 6750 hint). */
export async function verifyTokenWithReason(
  key: Uint8Array,
  token: string,
  now: Date,
): Promise<{ claims: AnyTokenClaims | null; expired: boolean }> {
  try {
    const { payload } = await jwtVerify(token, await hmacKey(key), {
      algorithms: ['HS256'],
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'jti'],
    });
    if (typeof payload.type !== 'string' || typeof payload.environment !== 'string')
      return { claims: null, expired: false };
    return { claims: payload as unknown as AnyTokenClaims, expired: false };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { claims: null, expired: true };
    if (err instanceof joseErrors.JOSEError) return { claims: null, expired: false };
    throw err;
  }
}
