/**
 * Request authentication for Token.io (docs/vendors/tokenio.md, "Authentication" and point 9):
 * the sandbox API key as `Authorization: Basic <key>`, or a detached JWS per request whose
 * protected header names the member, key, host, method and path and expires in five minutes,
 * signed over the exact body bytes.
 */
import { sign } from 'node:crypto';
import type { TokenioAuth } from './config';

const JWT_LIFETIME_MS = 5 * 60_000;

export function requestSigner(
  auth: TokenioAuth,
  memberId: string,
  baseUrl: string,
  now: () => number = Date.now,
) {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  return (r: { method: string; path: string; body: Buffer | undefined }): Record<string, string> => {
    if (auth.kind === 'api_key') return { authorization: `Basic ${auth.apiKey}` };
    const header = {
      alg: auth.alg,
      kid: auth.keyId,
      mid: memberId,
      host: base.host,
      method: r.method,
      path: `${basePath}${r.path.split('?')[0]}`,
      exp: now() + JWT_LIFETIME_MS,
    };
    const encoded = Buffer.from(JSON.stringify(header)).toString('base64url');
    const input = Buffer.from(`${encoded}.${(r.body ?? Buffer.alloc(0)).toString('base64url')}`);
    const signature =
      auth.alg === 'EdDSA'
        ? sign(null, input, auth.privateKey)
        : auth.alg === 'RS256'
          ? sign('sha256', input, auth.privateKey)
          : sign('sha256', input, { key: auth.privateKey, dsaEncoding: 'ieee-p1363' });
    return { authorization: `Bearer ${encoded}..${signature.toString('base64url')}` };
  };
}
