/**
 * A newcomer who sends an API key or secret where the access token belongs (as the bearer token,
 * or as HTTP Basic's user) is told to exchange it at POST /auth/api-token: in the RFC 6750
 * challenge and in the body's `error_description`. The 401 detail stays the spec's, and neither
 * the answer nor the logs hold the secret (the setup file fails the file on a logged secret).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx?.close());

const HINT =
  'An API key or secret is not an access token: exchange the key and secret at POST /api/v1/auth/api-token ' +
  'and send the access_token it returns as the bearer token';

describe('an API credential sent as the access token', () => {
  it('says to exchange it at POST /auth/api-token, without echoing it', async () => {
    const owner = await createTestClient(ctx, { role: 'owner' });
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/api-credentials',
      headers: owner.headers,
      payload: { label: 'Backend', role: 'operations' },
    });
    expect(created.statusCode).toBe(201);
    const { api_key, api_secret } = created.json() as { api_key: string; api_secret: string };
    const basic = (user: string) => `Basic ${Buffer.from(user).toString('base64')}`;
    for (const authorization of [
      `Bearer ${api_key}`,
      `Bearer ${api_secret}`,
      basic(`${api_secret}:`),
      basic(`${api_key}:${api_secret}`),
    ]) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/api/v1/transactions',
        headers: { authorization },
      });
      expect(res.statusCode, authorization.slice(0, 6)).toBe(401);
      expect(res.headers['www-authenticate']).toBe(
        `Bearer error="invalid_token", error_description="${HINT}"`,
      );
      expect(res.json()).toEqual({ detail: M.couldNotValidate, error_description: HINT });
      expect(res.body + String(res.headers['www-authenticate'])).not.toContain(api_secret);
    }
    // The exchange it points at works with the same pair.
    const token = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/api-token',
      payload: { api_key, api_secret },
    });
    expect(token.statusCode).toBe(200);
    const ok = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/transactions',
      headers: { authorization: `Bearer ${token.json().access_token}` },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('keeps the other answers: no token is a plain challenge, a bad one says why in header and body', async () => {
    const none = await ctx.app.inject({ method: 'GET', url: '/api/v1/transactions' });
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.json()).toEqual({ detail: M.couldNotValidate });
    const junk = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/transactions',
      headers: { authorization: 'Bearer pk_live_not_ours' },
    });
    const description = /error_description="([^"]+)"/.exec(String(junk.headers['www-authenticate']))?.[1];
    expect(description).toMatch(/^The access token is malformed/);
    expect(junk.json()).toEqual({ detail: M.couldNotValidate, error_description: description });
  });
});
