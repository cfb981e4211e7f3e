/**
 * Developer-experience fixes (issue 18): RFC 6750 challenges, 405 with Allow, the currency
 * message, one permission sentence per operation, the webhook secret shown once, merchant
 * metadata in payment.status_changed, and the sandbox `outcome` shortcut.
 */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../src/db/schema/index';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { createPaylink, newKey, paylinkBody } from '../payments/fixtures';

const suite = paymentApp();

const api = (method: string, url: string, headers: Record<string, string>, payload?: object) =>
  suite.ctx.app.inject({
    method: method as 'GET',
    url: `/api/v1${url}`,
    headers,
    ...(payload ? { payload } : {}),
  });

describe('401 challenges (RFC 6750)', () => {
  it('says an expired token expired, a garbage token is invalid, and keeps the spec detail', async () => {
    const caller = await createTestClient(suite.ctx, { role: 'owner' });
    const none = await api('GET', '/auth/me', {});
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const junk = await api('GET', '/auth/me', { authorization: 'Bearer not-a-token' });
    expect(junk.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", error_description="/);
    expect(junk.headers['www-authenticate']).not.toContain('expired');
    suite.ctx.clock.advanceSeconds(8 * 24 * 3600);
    const expired = await api('GET', '/auth/me', caller.headers);
    suite.ctx.clock.advanceSeconds(-8 * 24 * 3600);
    expect(expired.statusCode).toBe(401);
    expect(expired.headers['www-authenticate']).toBe(
      'Bearer error="invalid_token", error_description="The access token expired"',
    );
    expect(expired.json().detail).toBe(junk.json().detail);
  });
});

describe('405 for a wrong method on a known path', () => {
  it('answers 405 with Allow, and 404 for an unknown path', async () => {
    const res = await suite.ctx.app.inject({ method: 'DELETE', url: '/api/v1/checkout/paylink' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json()).toEqual({ detail: 'Method Not Allowed' });
    const param = await suite.ctx.app.inject({ method: 'PATCH', url: '/api/v1/transactions/abc' });
    expect(param.statusCode).toBe(405);
    expect(String(param.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD']));
    expect((await suite.ctx.app.inject({ method: 'DELETE', url: '/api/v1/nowhere' })).statusCode).toBe(404);
  });
});

describe('paylink input', () => {
  it('says a lower-case currency is not an upper-case ISO 4217 code', async () => {
    const res = await api(
      'POST',
      '/checkout/paylink',
      { ...suite.w.caller.headers, 'x-idempotency-key': newKey() },
      {
        ...paylinkBody(suite.w),
        currency: 'eur',
      },
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toContainEqual({
      loc: ['body', 'currency'],
      msg: 'Currency must be an upper-case ISO 4217 code such as EUR',
      type: 'value_error',
    });
  });
});

describe('OpenAPI descriptions', () => {
  it('names the permission once per operation', () => {
    const doc = suite.ctx.app.swagger() as unknown as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    const me = doc.paths['/api/v1/auth/me']!.get!.description!;
    expect(me.match(/Permission `account.read`/g)).toHaveLength(1);
    const paylink = doc.paths['/api/v1/checkout/paylink']!.post!.description!;
    expect(paylink).toContain('Permission `payments.write` required');
  });
});

describe('paylink example', () => {
  it('passes validation as documented, and creates a payment with real ids', async () => {
    type Media = {
      example?: object;
      examples?: Record<string, { value: object }>;
      schema: { examples?: object[] };
    };
    const doc = suite.ctx.app.swagger() as unknown as {
      paths: Record<string, Record<string, { requestBody: { content: Record<string, Media> } }>>;
    };
    const media = doc.paths['/api/v1/checkout/paylink']!.post!.requestBody.content['application/json']!;
    // The body schema is named centrally (components.schemas); its example travels with it.
    const schemas = (doc as unknown as { components: { schemas: Record<string, { examples?: object[] }> } })
      .components.schemas;
    const named =
      schemas[
        String((media.schema as { $ref?: string }).$ref)
          .split('/')
          .pop()!
      ];
    const example = (media.example ?? named?.examples?.[0] ?? media.schema.examples?.[0]) as Record<
      string,
      unknown
    >;
    expect(example, JSON.stringify(media).slice(0, 300)).toBeDefined();
    const headers = { ...suite.w.caller.headers, 'x-idempotency-key': newKey() };
    const asIs = await api('POST', '/checkout/paylink', headers, example);
    expect(asIs.statusCode, asIs.body).toBe(404); // valid; the example's project is not this client's
    const real = await api(
      'POST',
      '/checkout/paylink',
      { ...headers, 'x-idempotency-key': newKey() },
      {
        ...example,
        project_id: suite.w.projectId,
        user_id: suite.w.userId,
      },
    );
    expect(real.statusCode, real.body).toBe(201);
  });
});

describe('hosted checkout 404', () => {
  it('names no merchant (not "Checkout") on an unknown link', async () => {
    const res = await suite.ctx.app.inject({ url: '/checkout/unknown-link-token-0123456789' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('Payment page for Checkout');
    expect(res.body).toContain('No payment was made.');
  });
});

describe('webhook secret', () => {
  it('is shown once, when the webhook URL is first configured', async () => {
    const c = await createTestClient(suite.ctx, { role: 'owner' });
    const first = await api('PUT', '/webhooks/subscription', c.headers, {
      webhook_url: 'https://merchant.example.com/hooks',
      webhook_enabled: true,
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().webhook_secret).toMatch(/^whsec_/);
    const again = await api('PUT', '/webhooks/subscription', c.headers, {
      webhook_url: 'https://merchant.example.com/h2',
    });
    expect(again.json().webhook_secret).toBeUndefined();
    const viaSettings = await api('PUT', '/auth/client/settings', c.headers, {
      webhook_url: 'https://x.example.com/h',
    });
    expect(viaSettings.json().webhook_secret).toBeUndefined();
    const rotated = await api('POST', '/webhooks/subscription/secret', c.headers);
    expect(rotated.json().webhook_secret).toMatch(/^whsec_/);
    expect(rotated.json().webhook_secret).not.toBe(first.json().webhook_secret);
  });
});

describe('sandbox outcome shortcut and metadata in the event', () => {
  async function statusEvents(id: string) {
    return suite.ctx.db
      .select()
      .from(events)
      .where(and(eq(events.type, 'payment.status_changed'), sql`${events.data}->>'transaction_id' = ${id}`))
      .orderBy(events.createdAt, events.id);
  }

  it.each([
    ['success', 'success', 'completed'],
    ['failed', 'failed', 'rejected'],
    ['expired', 'expired', 'expired'],
    ['canceled', 'canceled', 'canceled'],
  ])('outcome %s walks pending -> processing -> %s', async (outcome, status, detail) => {
    const t = await createPaylink(suite.ctx, suite.w, { metadata: { order_id: 'A-42' } });
    const res = await api(
      'POST',
      `/sandbox/transactions/${t.transaction_id}/simulate`,
      suite.w.caller.headers,
      {
        outcome,
      },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status, provider_status: detail, reconciliation_state: 'none' });
    const evs = await statusEvents(t.transaction_id);
    expect(evs.map((e) => (e.data as Record<string, unknown>).current_payment_status)).toEqual([
      'processing',
      status,
    ]);
    expect((evs[1]!.data as Record<string, unknown>).metadata).toEqual({ order_id: 'A-42' });
  });

  it('wants exactly one of provider_status and outcome', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    const url = `/sandbox/transactions/${t.transaction_id}/simulate`;
    const both = await api('POST', url, suite.w.caller.headers, {
      outcome: 'success',
      provider_status: 'completed',
    });
    expect(both.statusCode).toBe(422);
    expect((await api('POST', url, suite.w.caller.headers, {})).statusCode).toBe(422);
    expect((await api('POST', url, suite.w.caller.headers, { outcome: 'maybe' })).statusCode).toBe(422);
  });
});
