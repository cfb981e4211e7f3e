import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageEnvelope, pageQuerySchema, paginationMeta, toPageParams } from '../../src/shared/pagination';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestApp({
    register: (app) => {
      app.post(
        '/test/validate/:id',
        {
          config: { auth: 'public' },
          schema: {
            params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
            querystring: Type.Object({ n: Type.Optional(Type.Integer({ maximum: 5 })) }),
            body: Type.Object(
              {
                amount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }),
                nested: Type.Object({
                  items: Type.Array(Type.Object({ name: Type.String({ minLength: 1 }) })),
                }),
              },
              { additionalProperties: false },
            ),
            response: { 200: Type.Object({ ok: Type.Boolean() }) },
          },
        },
        async () => ({ ok: true }),
      );
      app.get('/test/boom', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
        throw new Error('relation "secret_table" does not exist: SELECT password FROM users');
      });
      app.get(
        '/test/items',
        {
          config: { auth: 'public' },
          schema: { hide: true, querystring: Type.Object(pageQuerySchema(10, 200)) },
        },
        async (request) => {
          const p = toPageParams(request.query as { page?: number; page_size?: number }, 10);
          const total = 25;
          const count = Math.max(0, Math.min(p.pageSize, total - p.offset));
          return {
            items_named: Array.from({ length: count }, (_, i) => p.offset + i),
            pagination: paginationMeta(total, p),
          };
        },
      );
      app.get(
        '/test/private',
        {
          config: { permission: 'payments.read' },
          schema: { hide: true, response: { 200: pageEnvelope('things', Type.String()) } },
        },
        async () => ({ things: [], pagination: paginationMeta(0, toPageParams({}, 10)) }),
      );
    },
  });
});
afterAll(() => ctx.close());

const goodId = '0190e3a4-5f4e-7c3b-8a2d-1e2f3a4b5c6d';

describe('422 validation errors', () => {
  it('names the failing body field path in loc', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/test/validate/${goodId}`,
      payload: { amount: 'abc', nested: { items: [{ name: '' }] } },
    });
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail;
    expect(detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'amount'], type: 'string_pattern_mismatch' }),
        expect.objectContaining({ loc: ['body', 'nested', 'items', 0, 'name'], type: 'string_too_short' }),
      ]),
    );
    for (const d of detail) expect(typeof d.msg).toBe('string');
  });

  it('reports missing and extra fields', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/test/validate/${goodId}`,
      payload: { surprise: 1 },
    });
    expect(res.statusCode).toBe(422);
    const detail = res.json().detail;
    expect(detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'amount'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'surprise'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ]),
    );
  });

  it('uses path and query locations', async () => {
    const payload = { amount: '1', nested: { items: [] } };
    const badPath = await ctx.app.inject({ method: 'POST', url: '/test/validate/not-a-uuid', payload });
    expect(badPath.statusCode).toBe(422);
    expect(badPath.json().detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'uuid_parsing' });
    const badQuery = await ctx.app.inject({ method: 'POST', url: `/test/validate/${goodId}?n=9`, payload });
    expect(badQuery.statusCode).toBe(422);
    expect(badQuery.json().detail[0]).toMatchObject({ loc: ['query', 'n'], type: 'less_than_equal' });
  });

  it('answers malformed JSON with 422 json_invalid', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/test/validate/${goodId}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"amount": ',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });
});

describe('401, 404 and 500', () => {
  it('401 carries WWW-Authenticate: Bearer', async () => {
    for (const authorization of [undefined, 'Bearer nonsense', 'Basic abc']) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/test/private',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode).toBe(401);
      // RFC 6750: no bearer token at all is a plain challenge; a bad one says invalid_token.
      if (authorization === 'Bearer nonsense')
        expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="/);
      else expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json().detail).toBe('Could not validate credentials');
    }
  });

  it('accepts a valid token', async () => {
    const caller = await createTestClient(ctx, { role: 'developer' });
    const res = await ctx.app.inject({ method: 'GET', url: '/test/private', headers: caller.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      things: [],
      pagination: { total: 0, page: 1, page_size: 10, total_pages: 0 },
    });
  });

  it('unknown routes are 404 {detail: "Not Found"}', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/v1/does-not-exist' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not Found' });
  });

  it('unexpected errors are 500 without stack or SQL', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/test/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ detail: 'Internal Server Error' });
    expect(res.body).not.toMatch(/secret_table|SELECT|at /);
  });
});

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id and generates one otherwise', async () => {
    const given = await ctx.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const generated = await ctx.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('pagination', () => {
  const get = (qs: string) => ctx.app.inject({ method: 'GET', url: `/test/items${qs}` });

  it('defaults to page 1 with the endpoint default size', async () => {
    const res = await get('');
    expect(res.json().pagination).toEqual({ total: 25, page: 1, page_size: 10, total_pages: 3 });
    expect(res.json().items_named).toHaveLength(10);
  });

  it('gives an empty page beyond the last one', async () => {
    const res = await get('?page=4');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      items_named: [],
      pagination: { total: 25, page: 4, page_size: 10, total_pages: 3 },
    });
  });

  it('rejects page_size 0, page 0 and page_size above the maximum with 422', async () => {
    for (const [qs, field] of [
      ['?page_size=0', 'page_size'],
      ['?page_size=201', 'page_size'],
      ['?page=0', 'page'],
      ['?page=x', 'page'],
    ] as const) {
      const res = await get(qs);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['query', field]);
    }
  });

  it('accepts the maximum page_size', async () => {
    const res = await get('?page_size=200');
    expect(res.json().pagination).toEqual({ total: 25, page: 1, page_size: 200, total_pages: 1 });
  });
});
