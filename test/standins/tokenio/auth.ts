/**
 * Request authentication as Token.io documents it (docs "Authentication keys and API signing", and
 * the reference's `securitySchemes`): `Authorization: Basic <API key>` (sandbox only) or
 * `Authorization: Bearer <JWT>`, a detached JWS whose protected header carries alg, kid, mid
 * (member id), host, method, path and exp (milliseconds), signed over the request body. The exact
 * signing input is our reading of the reference's example (docs/vendors/tokenio.md, point 9).
 */
import { type KeyObject, verify } from 'node:crypto';

export interface StandinAuth {
  memberId: string;
  /** Accepted `Authorization: Basic <apiKey>` value (sandbox mode); null refuses API keys. */
  apiKey: string | null;
  /** Public keys by key id for JWT requests. */
  jwtKeys: Record<string, KeyObject>;
}

const b64url = (s: string) => Buffer.from(s, 'base64url');

/** Null when the request is authenticated, else the reason (the 401 message). */
export function checkAuth(
  auth: StandinAuth,
  req: { method: string; path: string; host: string; body: Buffer; authorization: string | undefined },
  nowMs: number,
): string | null {
  const h = req.authorization ?? '';
  if (h.startsWith('Basic ')) {
    if (auth.apiKey !== null && h.slice(6).trim() === auth.apiKey) return null;
    return 'The API key is not valid';
  }
  if (!h.startsWith('Bearer ')) return 'Authorization header is missing';
  const parts = h.slice(7).trim().split('.');
  if (parts.length !== 3 || parts[1] !== '') return 'The JWT must be a detached JWS';
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(b64url(parts[0]!).toString('utf8'));
  } catch {
    return 'The JWT header is not valid';
  }
  const key = typeof header.kid === 'string' ? auth.jwtKeys[header.kid] : undefined;
  if (!key) return 'Unknown key id';
  if (header.mid !== auth.memberId) return 'The JWT is not for this member';
  if (header.method !== req.method || header.path !== req.path) return 'The JWT does not match the request';
  if (typeof header.exp !== 'number' || header.exp < nowMs) return 'The JWT has expired';
  const input = Buffer.from(`${parts[0]}.${req.body.toString('base64url')}`);
  const sig = b64url(parts[2]!);
  const ok =
    header.alg === 'EdDSA'
      ? verify(null, input, key, sig)
      : header.alg === 'ES256'
        ? verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, sig)
        : header.alg === 'RS256'
          ? verify('sha256', input, key, sig)
          : false;
  return ok ? null : 'The JWT signature is not valid';
}
