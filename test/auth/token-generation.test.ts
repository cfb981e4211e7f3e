/**
 * Issue 11 item 2: reset-secret and disable kill every token minted before them, even in the same
 * second (JWT iat has second precision). The manual clock does not move between minting and
 * rotating, so the token's iat equals the rotation's second; the credential generation carried in
 * the token is what refuses it.
 */
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { apiCredentials } from '../../src/db/schema/index';
import { M } from '../../src/shared/messages';
import { securityHeaders } from '../helpers/challenge';
import { smtpApp } from '../helpers/suites';

const suite = smtpApp({ client: { role: 'owner' } });

const BASE = '/api/v1/auth/api-credentials';
const nowSecond = () => Math.floor(suite.ctx.clock.now().getTime() / 1000);

async function createCredential(): Promise<{ credential_id: string; api_key: string; api_secret: string }> {
  const res = await suite.ctx.app.inject({
    method: 'POST',
    url: BASE,
    headers: suite.owner.headers,
    payload: { label: 'same second', role: 'developer' },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function mint(apiKey: string, apiSecret: string): Promise<string> {
  const res = await suite.ctx.app.inject({
    method: 'POST',
    url: '/api/v1/auth/api-token',
    payload: { api_key: apiKey, api_secret: apiSecret },
  });
  expect(res.statusCode).toBe(200);
  return res.json().access_token;
}

const use = (token: string) =>
  suite.ctx.app.inject({
    url: '/api/v1/auth/client/settings',
    headers: { authorization: `Bearer ${token}` },
  });

describe('rotation inside one second', () => {
  it('reset-secret refuses a token minted in the same second, and the new one works', async () => {
    const cred = await createCredential();
    // Challenge first, so nothing else happens between minting and rotating.
    const headers = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'REFRESH_API_KEY');
    const second = nowSecond();
    const before = await mint(cred.api_key, cred.api_secret);
    expect(decodeJwt(before).iat).toBe(second);
    expect(decodeJwt(before).gen).toBe(0);
    expect((await use(before)).statusCode).toBe(200);

    const reset = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${cred.credential_id}/reset-secret`,
      headers,
    });
    expect(reset.statusCode).toBe(200);
    const [row] = await suite.ctx.db
      .select()
      .from(apiCredentials)
      .where(eq(apiCredentials.id, cred.credential_id));
    // Rotated in the very second the token was minted.
    expect(Math.floor(row!.secretRotatedAt!.getTime() / 1000)).toBe(second);
    expect(row!.tokenGeneration).toBe(1);

    const refused = await use(before);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toBe(M.invalidApiKey);

    // A token minted with the new secret, still in that second, is valid.
    const after = await mint(cred.api_key, reset.json().api_secret);
    expect(decodeJwt(after).iat).toBe(second);
    expect(decodeJwt(after).gen).toBe(1);
    expect((await use(after)).statusCode).toBe(200);

    // A second rotation in the same second kills that one too.
    const headers2 = await securityHeaders(suite.ctx, suite.smtp, suite.owner, 'REFRESH_API_KEY');
    const reset2 = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${cred.credential_id}/reset-secret`,
      headers: headers2,
    });
    expect(reset2.statusCode).toBe(200);
    expect(nowSecond()).toBe(second);
    expect((await use(after)).statusCode).toBe(401);
    expect((await use(await mint(cred.api_key, reset2.json().api_secret))).statusCode).toBe(200);
  });

  it('disable refuses a token minted in the same second', async () => {
    const cred = await createCredential();
    const second = nowSecond();
    const token = await mint(cred.api_key, cred.api_secret);
    expect((await use(token)).statusCode).toBe(200);
    const res = await suite.ctx.app.inject({
      method: 'POST',
      url: `${BASE}/${cred.credential_id}/disable`,
      headers: suite.owner.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(nowSecond()).toBe(second);
    const refused = await use(token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toBe(M.invalidApiKey);
  });
});
