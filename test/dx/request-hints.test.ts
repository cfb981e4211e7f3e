/**
 * Hints for two newcomer mistakes, the spec's `detail` unchanged: a token sent without `Bearer `
 * (401 with `error_description` saying the header's form), and an API path without its /api/v1
 * prefix (the 404/405 body names the path meant).
 */
import { describe, expect, it } from 'vitest';
import { clientApp } from '../helpers/suites';

const s = clientApp();

describe('request hints', () => {
  it('a token without "Bearer " is 401 Could not validate credentials, saying the header form', async () => {
    const token = String(s.owner.headers.authorization).replace(/^Bearer\s+/i, '');
    const r = await s.ctx.app.inject({ url: '/api/v1/transactions', headers: { authorization: token } });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toEqual({
      detail: 'Could not validate credentials',
      error_description:
        'The Authorization header must be Bearer <access_token>: the word Bearer, a space, then the token',
    });
    expect(r.headers['www-authenticate']).toBe('Bearer');
    // No header at all: the plain challenge, as before.
    const none = await s.ctx.app.inject({ url: '/api/v1/transactions' });
    expect(none.json()).toEqual({ detail: 'Could not validate credentials' });
    expect(none.headers['www-authenticate']).toBe('Bearer');
  });

  it('a path without /api/v1 names the API path meant (405 and 404 alike)', async () => {
    const post = await s.ctx.app.inject({
      method: 'POST',
      url: '/checkout/paylink',
      headers: s.owner.headers,
      payload: {},
    });
    expect(post.statusCode).toBe(405);
    expect(post.json()).toEqual({
      detail: 'Method Not Allowed',
      hint: 'API paths start with /api/v1: POST /api/v1/checkout/paylink',
    });
    const get = await s.ctx.app.inject({ url: '/transactions?page=1', headers: s.owner.headers });
    expect(get.statusCode).toBe(404);
    expect(get.json()).toEqual({
      detail: 'Not Found',
      hint: 'API paths start with /api/v1: GET /api/v1/transactions',
    });
    const nothing = await s.ctx.app.inject({ url: '/no-such-thing' });
    expect(nothing.json()).toEqual({ detail: 'Not Found' });
  });
});
