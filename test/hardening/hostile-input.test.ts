/**
 * Hostile input is a 4xx in the spec's format on every route, handled centrally: NUL characters and
 * lone surrogates anywhere in a body, query or path (values and keys), non-finite and out-of-range
 * numbers, no type coercion in JSON bodies, JSON routes refusing other media types, and signed
 * provider routes that check the signature before anything looks at the body.
 */
import { describe, expect, it } from 'vitest';
import { signProviderPayload } from '../../src/providers/signature';
import { paymentApp } from '../helpers/suites';
import { newKey, paylinkBody } from '../payments/fixtures';

const s = paymentApp();

const json = { 'content-type': 'application/json' };

function paylink(payload: string, headers: Record<string, string> = {}) {
  return s.ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...s.w.caller.headers, ...json, 'x-idempotency-key': newKey(), ...headers },
    payload,
  });
}

/** The paylink body as JSON text with `replace` spliced in raw (numbers JSON.stringify cannot write). */
const rawBody = (extra: string) => {
  const base = JSON.stringify(paylinkBody(s.w));
  return `${base.slice(0, -1)},${extra}}`;
};

function expectIssue(res: { statusCode: number; json(): unknown }, loc: unknown[], type: string) {
  expect(res.statusCode).toBe(422);
  const detail = (res.json() as { detail: { loc: unknown[]; msg: string; type: string }[] }).detail;
  expect(detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  for (const d of detail) expect(typeof d.msg).toBe('string');
}

describe('text that PostgreSQL cannot store', () => {
  it('rejects a NUL character in a body field, a nested key and a query value, naming loc', async () => {
    expectIssue(
      await paylink(rawBody('"description":"a\\u0000b"')),
      ['body', 'description'],
      'string_nul_character',
    );
    expectIssue(
      await paylink(rawBody('"metadata":{"k\\u0000":"v"}')),
      ['body', 'metadata', 'k\u0000'],
      'string_nul_character',
    );
    const q = await s.ctx.app.inject({ url: '/api/v1/kyc/lists?q=a%00b', headers: s.w.caller.headers });
    expectIssue(q, ['query', 'q'], 'string_nul_character');
  });

  it('rejects a NUL character in a path parameter', async () => {
    const res = await s.ctx.app.inject({
      url: '/api/v1/transactions/abc%00def',
      headers: s.w.caller.headers,
    });
    expectIssue(res, ['path', 'transaction_id'], 'string_nul_character');
  });

  it('rejects lone surrogates but accepts real surrogate pairs', async () => {
    expectIssue(
      await paylink(rawBody('"description":"x\\ud800"')),
      ['body', 'description'],
      'string_unicode',
    );
    expectIssue(await paylink(rawBody('"description":"\\udc00"')), ['body', 'description'], 'string_unicode');
    const ok = await paylink(rawBody('"description":"pay \\ud83d\\ude00"'));
    expect(ok.statusCode).toBe(201);
    expect(ok.json().description).toBe('pay 😀');
  });
});

describe('numbers', () => {
  it('rejects non-finite and out-of-range numbers with a 422', async () => {
    expectIssue(
      await paylink(rawBody('"expires_in_seconds":1e400')),
      ['body', 'expires_in_seconds'],
      'finite_number',
    );
    expectIssue(
      await paylink(rawBody('"expires_in_seconds":99999999999999999999')),
      ['body', 'expires_in_seconds'],
      'less_than_equal',
    );
    expectIssue(
      await paylink(rawBody('"expires_in_seconds":"Infinity"')),
      ['body', 'expires_in_seconds'],
      'integer_type',
    );
  });

  it('bounds every page, page_size, limit and offset, also Infinity in a query string', async () => {
    for (const url of [
      '/api/v1/transactions?page=99999999999999999999',
      '/api/v1/transactions?page=Infinity',
      '/api/v1/transactions?page=1e400',
      '/api/v1/webhooks/deliveries?offset=99999999999999999999',
      '/api/v1/webhooks/deliveries?limit=-Infinity',
    ]) {
      const res = await s.ctx.app.inject({ url, headers: s.w.caller.headers });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail[0].loc[0]).toBe('query');
    }
    const big = await s.ctx.app.inject({
      url: '/api/v1/transactions?page=2147483647',
      headers: s.w.caller.headers,
    });
    expect(big.statusCode).toBe(200);
    expect(big.json().transactions).toEqual([]);
  });

  it('documents the bounds it enforces', async () => {
    const doc = (await s.ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
    const page = doc.paths['/api/v1/transactions'].get.parameters.find(
      (p: { name: string }) => p.name === 'page',
    );
    expect(page.schema).toMatchObject({ minimum: 1, maximum: 2147483647 });
  });
});

describe('dates PostgreSQL cannot store', () => {
  // RFC 3339 allows year 0000; an offset can also push 9999-12-31 into year 10000 in UTC.
  it('refuses year 0000 and instants past 9999 in bodies and query strings with a 422, not a 500', async () => {
    for (const before of ['0000-01-01T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:00:00-02:00']) {
      const res = await s.ctx.app.inject({
        method: 'POST',
        url: '/api/v1/notifications/mark-seen',
        headers: { ...s.w.caller.headers, ...json },
        payload: { before },
      });
      expectIssue(res, ['body', 'before'], 'date_time_parsing');
    }
    const q = await s.ctx.app.inject({
      url: `/api/v1/contracts/templates?updated_from=${encodeURIComponent('0000-06-01T00:00:00Z')}`,
      headers: s.w.caller.headers,
    });
    expectIssue(q, ['query', 'updated_from'], 'date_time_parsing');
  });

  it('still accepts the first and last storable instants', async () => {
    for (const before of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '9999-12-31t20:00:00-03:00']) {
      const res = await s.ctx.app.inject({
        method: 'POST',
        url: '/api/v1/notifications/mark-seen',
        headers: { ...s.w.caller.headers, ...json },
        payload: { before },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
});

describe('no type coercion in JSON bodies', () => {
  it('refuses a number where a string is expected and says what was expected', async () => {
    const res = await paylink(rawBody('"description":12'));
    expectIssue(res, ['body', 'description'], 'string_type');
    expect(res.json().detail[0].msg).toBe('Input should be a valid string');
  });

  it('refuses a string where an integer is expected, and a boolean where a string is expected', async () => {
    expectIssue(
      await paylink(rawBody('"expires_in_seconds":"3600"')),
      ['body', 'expires_in_seconds'],
      'integer_type',
    );
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: s.w.caller.headers,
      payload: { project_name: true },
    });
    expectIssue(res, ['body', 'project_name'], 'string_type');
  });

  it('still coerces query strings and path parameters, which are strings on the wire', async () => {
    const res = await s.ctx.app.inject({
      url: '/api/v1/transactions?page=1&page_size=5',
      headers: s.w.caller.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().pagination).toMatchObject({ page: 1, page_size: 5 });
  });
});

describe('media types', () => {
  it('JSON routes answer 415 to forms, plain text and a missing type, saying what to send', async () => {
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'project_name=Shop'],
      ['', 'project_name=Shop'],
      ['text/plain', '{"project_name":"Shop"}'],
      ['application/xml', '<project/>'],
    ]) {
      const res = await s.ctx.app.inject({
        method: 'POST',
        url: '/api/v1/projects',
        headers: { ...s.w.caller.headers, 'content-type': type! },
        payload,
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.json()).toEqual({ detail: 'Content-Type must be application/json' });
    }
  });

  it('the remediation page (multipart upload) names its own accepted types in its 415', async () => {
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/remediate/0123456789abcdef0123456789abcdef0123456789a',
      headers: { 'content-type': 'text/plain' },
      payload: 'explanation=salary',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      detail:
        'Content-Type must be multipart/form-data, application/x-www-form-urlencoded or application/json',
    });
  });

  it('the hosted pages still take their forms', async () => {
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/checkout/0123456789abcdef0123/bank',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'bank_id=nobank',
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

describe('signed provider notifications', () => {
  const sign = (body: string) => ({
    ...json,
    'x-provider-signature': signProviderPayload(
      s.ctx.deps.secrets.providerWebhookSecret,
      body,
      s.ctx.clock.now(),
    ),
  });
  const routes = ['/api/v1/providers/bank/notifications', '/api/v1/providers/verification/notifications'];
  const hostile = [
    'null',
    '[]',
    '"text"',
    '12',
    '{"event_id":"e\\u0000","ref_id":"r","provider_status":"completed"}',
    '{"event_id":"e1","verification_ref":"v","status":"approved","revision":99999999999999999999,"occurred_at":"2026-01-15T10:00:00Z"}',
    '{"event_id":"e1","verification_ref":"v","status":"approved","revision":1e400,"occurred_at":"2026-01-15T10:00:00Z"}',
    '{"event_id":"e1","ref_id":"\\ud800","provider_status":"completed"}',
  ];

  it('checks the signature first: unsigned hostile bodies are 401', async () => {
    for (const url of routes)
      for (const payload of [...hostile, '{"a":"\u0000"}']) {
        const res = await s.ctx.app.inject({ method: 'POST', url, headers: json, payload });
        expect(res.statusCode, `${url} ${payload}`).toBe(401);
        expect(typeof res.json().detail).toBe('string');
      }
  });

  it('answers correctly signed hostile bodies with a 4xx in the spec format, never a 5xx', async () => {
    for (const url of routes)
      for (const payload of hostile) {
        const res = await s.ctx.app.inject({ method: 'POST', url, headers: sign(payload), payload });
        expect(res.statusCode, `${url} ${payload}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${url} ${payload}`).toBeLessThan(500);
        const detail = res.json().detail;
        expect(typeof detail === 'string' || Array.isArray(detail)).toBe(true);
      }
  });
});
