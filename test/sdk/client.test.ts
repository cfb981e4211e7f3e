/**
 * @svc/sdk against a started service (the real app listening on a port, manual clock): API
 * credential exchange and renewal (before expiry and after a 401), single-flight, pagination over
 * several pages (page/page_size and limit/offset), a payment link with an idempotency key (also
 * across a lost response), typed errors, and webhook verification of a real delivery.
 */
import { constructEvent, createClient, SvcApiError, type SvcClient, verifyWebhookSignature } from '@svc/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher } from '../../src/outbox/dispatcher';
import type { TestContext } from '../helpers/app';
import type { Receiver } from '../helpers/receiver';
import { startSdkWorld } from '../helpers/sdk-world';
import type { PaymentWorld } from '../payments/fixtures';

const TTL = 600;
let ctx: TestContext;
let baseUrl: string;
let world: PaymentWorld;
let credential: { api_key: string; api_secret: string };
let receiver: Receiver;
let webhookSecret: string;

interface Sent {
  method: string;
  path: string;
  authorization: string | null;
  idempotencyKey: string | null;
  status: number;
}

/** A fetch that records what the SDK sent; `failAfterSend` loses the next response (network error). */
function recordingFetch() {
  const sent: Sent[] = [];
  const state = { failAfterSend: 0 };
  const fetch = async (req: Request) => {
    const res = await globalThis.fetch(req.clone());
    sent.push({
      method: req.method,
      path: new URL(req.url).pathname + new URL(req.url).search,
      authorization: req.headers.get('authorization'),
      idempotencyKey: req.headers.get('x-idempotency-key'),
      status: res.status,
    });
    if (state.failAfterSend > 0) {
      state.failAfterSend--;
      throw new TypeError('fetch failed');
    }
    return res;
  };
  return { sent, state, fetch };
}

function sdkFor(opts: { now?: () => number; fetch?: (r: Request) => Promise<Response> } = {}): SvcClient {
  return createClient({
    baseUrl,
    apiKey: credential.api_key,
    apiSecret: credential.api_secret,
    now: opts.now ?? (() => ctx.clock.now().getTime()),
    fetch: opts.fetch,
  });
}

beforeAll(async () => {
  ({ ctx, baseUrl, world, credential, receiver, webhookSecret } = await startSdkWorld('sdk test', {
    env: { SVC_API_TOKEN_TTL_SECONDS: String(TTL) },
  }));
  expect(webhookSecret).toMatch(/^whsec_/);
}, 180_000);
afterAll(async () => {
  await ctx?.close();
  await receiver?.close();
});

const paylink = (order: string) => ({
  amount: '12.50',
  currency: 'EUR',
  project_id: world.projectId,
  user_id: world.userId,
  metadata: { order },
});

describe('API credential tokens', () => {
  it('exchanges once for concurrent requests, renews before expiry and uses the renewed token', async () => {
    const rec = recordingFetch();
    const sdk = sdkFor({ fetch: rec.fetch });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => sdk.GET('/api/v1/transactions', { params: { query: {} } })),
    );
    expect(results.map((r) => r.response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(rec.sent.filter((s) => s.path === '/api/v1/auth/api-token')).toHaveLength(1);
    const first = rec.sent.find((s) => s.path.startsWith('/api/v1/transactions'))!.authorization;

    // Still well inside the lifetime: the cached token is reused.
    ctx.clock.advance(TTL * 500);
    await sdk.GET('/api/v1/transactions', { params: { query: {} } });
    expect(rec.sent.filter((s) => s.path === '/api/v1/auth/api-token')).toHaveLength(1);

    // Within the renewal margin (the last 60 s): renewed before the request is sent.
    ctx.clock.advance((TTL / 2 - 30) * 1000);
    const { response } = await sdk.GET('/api/v1/transactions', { params: { query: {} } });
    expect(response.status).toBe(200);
    const exchanges = rec.sent.filter((s) => s.path === '/api/v1/auth/api-token');
    expect(exchanges).toHaveLength(2);
    const last = rec.sent.at(-1)!;
    expect(last.path.startsWith('/api/v1/transactions')).toBe(true);
    expect(last.authorization).toMatch(/^Bearer /);
    expect(last.authorization).not.toBe(first);
    expect(rec.sent.map((s) => s.status)).not.toContain(401);
  });

  it('renews once after a 401 for an expired token and repeats the request with the new one', async () => {
    const rec = recordingFetch();
    // The SDK's clock stays behind: it believes its token is fresh; the service says expired.
    const sdkNow = ctx.clock.now().getTime();
    const sdk = sdkFor({ now: () => sdkNow, fetch: rec.fetch });
    expect((await sdk.GET('/api/v1/transactions', { params: { query: {} } })).response.status).toBe(200);
    ctx.clock.advance((TTL + 5) * 1000);
    const { data, response } = await sdk.GET('/api/v1/transactions', { params: { query: {} } });
    expect(response.status).toBe(200);
    expect(data?.transactions).toBeDefined();
    const tail = rec.sent.slice(-3);
    expect(tail.map((s) => [s.path.split('?')[0], s.status])).toEqual([
      ['/api/v1/transactions', 401],
      ['/api/v1/auth/api-token', 200],
      ['/api/v1/transactions', 200],
    ]);
    expect(tail[2]!.authorization).not.toBe(tail[0]!.authorization);
  });

  it('turns error answers into SvcApiError with status, detail and request id', async () => {
    const bad = createClient({ baseUrl, apiKey: credential.api_key, apiSecret: 'wrong-secret' });
    const err = await bad.GET('/api/v1/transactions', { params: { query: {} } }).catch((e) => e);
    expect(err).toBeInstanceOf(SvcApiError);
    expect(err.status).toBe(401);
    expect(err.detail).toBe('Invalid API key or secret');
    expect(err.requestId).toBeTruthy();

    const sdk = sdkFor();
    const invalid = await sdk
      .createPaymentLink({ ...paylink('bad'), currency: 'eur' }, { idempotencyKey: 'bad-currency' })
      .catch((e) => e);
    expect(invalid).toBeInstanceOf(SvcApiError);
    expect(invalid.status).toBe(422);
    expect(Array.isArray(invalid.detail)).toBe(true);
    expect(invalid.detail[0].loc).toContain('currency');
  });
});

describe('payment links and pagination', () => {
  it('one transaction per idempotency key, also when a response is lost and the SDK retries', async () => {
    const rec = recordingFetch();
    const sdk = sdkFor({ fetch: rec.fetch });
    const a = await sdk.createPaymentLink(paylink('o-1'), { idempotencyKey: 'order-o-1' });
    const b = await sdk.createPaymentLink(paylink('o-1'), { idempotencyKey: 'order-o-1' });
    expect(b.transaction_id).toBe(a.transaction_id);

    // The service creates the payment but the answer is lost: the retry carries the same key.
    rec.state.failAfterSend = 1;
    const c = await sdk.createPaymentLink(paylink('o-2'));
    const posts = rec.sent.filter((s) => s.path === '/api/v1/checkout/paylink').slice(-2);
    expect(posts).toHaveLength(2);
    expect(posts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
    expect(c.transaction_id).not.toBe(a.transaction_id);

    const ids: string[] = [];
    for await (const tx of sdk.paginate('/api/v1/transactions', { query: {} })) ids.push(tx.transaction_id);
    expect(ids.filter((id) => id === a.transaction_id)).toHaveLength(1);
    expect(ids.filter((id) => id === c.transaction_id)).toHaveLength(1);
  });

  it('iterates page/page_size lists across pages', async () => {
    const rec = recordingFetch();
    const sdk = sdkFor({ fetch: rec.fetch });
    for (let i = 0; i < 4; i++) await sdk.createPaymentLink(paylink(`page-${i}`));
    const { data } = await sdk.GET('/api/v1/transactions', { params: { query: { page_size: 200 } } });
    const total = data!.pagination.total;
    expect(total).toBeGreaterThanOrEqual(6);

    const before = rec.sent.length;
    const seen: string[] = [];
    for await (const tx of sdk.paginate('/api/v1/transactions', { query: { page_size: 2 } }))
      seen.push(tx.transaction_id);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    const pages = rec.sent.slice(before).filter((s) => s.path.startsWith('/api/v1/transactions'));
    expect(pages).toHaveLength(Math.ceil(total / 2));
    expect(pages.at(-1)!.path).toContain(`page=${Math.ceil(total / 2)}`);
  });
});

describe('webhooks', () => {
  it('verifies a real delivery; rejects a tampered body, a wrong secret and a stale timestamp', async () => {
    const secret = webhookSecret;
    const sdk = sdkFor();
    const link = await sdk.createPaymentLink(paylink('hook'));
    const sim = await sdk.POST('/api/v1/sandbox/transactions/{transaction_id}/simulate', {
      params: { path: { transaction_id: link.transaction_id } },
      body: { outcome: 'success' },
    });
    expect(sim.data?.status).toBe('success');
    const dispatcher = createDeliveryDispatcher(ctx.deps);
    await dispatcher.drain();
    await dispatcher.close();

    const deliveries = receiver
      .on('/hook')
      .filter((r) => JSON.parse(r.rawBody).data.transaction_id === link.transaction_id);
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    const final = deliveries.find((r) => JSON.parse(r.rawBody).data.current_payment_status === 'success')!;
    const { rawBody, headers } = final;

    expect(await verifyWebhookSignature(rawBody, headers, secret)).toBe(true);
    expect(await verifyWebhookSignature(Buffer.from(rawBody), headers, secret)).toBe(true);
    expect(
      await verifyWebhookSignature(rawBody, new Headers(headers as Record<string, string>), secret),
    ).toBe(true);
    expect(await verifyWebhookSignature(rawBody.replace('12.50', '99.50'), headers, secret)).toBe(false);
    expect(await verifyWebhookSignature(rawBody, headers, `${secret}x`)).toBe(false);
    const signedAt = Number(headers['x-svc-timestamp']) * 1000;
    expect(await verifyWebhookSignature(rawBody, headers, secret, { now: signedAt + 301_000 })).toBe(false);
    expect(
      await verifyWebhookSignature(rawBody, headers, secret, {
        now: signedAt + 301_000,
        toleranceSeconds: 600,
      }),
    ).toBe(true);

    const event = await constructEvent(rawBody, headers, secret);
    expect(event.type).toBe('payment.status_changed');
    if (event.type !== 'payment.status_changed') throw new Error('narrowing');
    expect(event.data.transaction_id).toBe(link.transaction_id);
    expect(event.data.current_payment_status).toBe('success');
    expect(event.data.metadata).toEqual({ order: 'hook' });
    await expect(constructEvent(`${rawBody} `, headers, secret)).rejects.toThrow(/signature/);

    // limit/offset pagination over the delivery history, one per page.
    const viaPages: string[] = [];
    for await (const d of sdk.paginate('/api/v1/webhooks/deliveries', { query: { limit: 1 } }))
      viaPages.push(d.delivery_id);
    expect(viaPages.length).toBe(receiver.requests.length);
    expect(new Set(viaPages).size).toBe(viaPages.length);
  });
});
