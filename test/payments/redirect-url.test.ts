/**
 * The optional per-payment `redirect_url` of POST /checkout/paylink (validated like the client's
 * URLs, https only in production), and what the hosted checkout shows: the network's ref_id as the
 * payment reference (the same the bank page shows) and a "Sandbox" badge only in the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorPage } from '../../src/platform/pages/error-page';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { paymentApp } from '../helpers/suites';
import {
  createPaylink,
  createPaymentWorld,
  newKey,
  type PaymentWorld,
  paylinkBody,
  pickBank,
  tokenOf,
} from './fixtures';

const s = paymentApp({ world: { callbackUrl: 'https://shop.example.com/back?cart=7' } });

function post(app: TestContext, world: PaymentWorld, body: Record<string, unknown>, key = newKey()) {
  return app.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...world.caller.headers, 'x-idempotency-key': key },
    payload: paylinkBody(world, body),
  });
}

describe('redirect_url on POST /checkout/paylink', () => {
  it('is returned in the creation answer and the transaction view; null when not given', async () => {
    const t = await createPaylink(s.ctx, s.w, { redirect_url: ' https://shop.example.com/orders/42?x=1 ' });
    expect(t.redirect_url).toBe('https://shop.example.com/orders/42?x=1');
    const view = await s.ctx.app.inject({
      url: `/api/v1/transactions/${t.transaction_id}`,
      headers: s.w.caller.headers,
    });
    expect(view.json().redirect_url).toBe('https://shop.example.com/orders/42?x=1');
    const plain = await createPaylink(s.ctx, s.w);
    expect(plain.redirect_url).toBeNull();
  });

  it('the payer returns to redirect_url (transaction_id appended) instead of the callback_url', async () => {
    const t = await createPaylink(s.ctx, s.w, { redirect_url: 'https://shop.example.com/orders/42?x=1' });
    const back = `https://shop.example.com/orders/42?x=1&transaction_id=${t.transaction_id}`;
    const cancel = await s.ctx.app.inject({
      method: 'POST',
      url: `/checkout/${tokenOf(t.checkout_url)}/cancel`,
    });
    expect(cancel.statusCode).toBe(303);
    expect(cancel.headers.location).toBe(back);
    // the result page's way back and the bank's return route point there too
    const page = await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.body).toContain(back.replace('&', '&amp;'));
    // the bank's return shows the outcome on the checkout first (its button is the way back)
    const ret = await s.ctx.app.inject({ url: `/checkout/${tokenOf(t.checkout_url)}/return` });
    expect(ret.headers.location).toBe(new URL(t.checkout_url).pathname);
  });

  it('http is accepted in the sandbox (like the callback URL)', async () => {
    const r = await post(s.ctx, s.w, { redirect_url: 'http://localhost:3000/done' });
    expect(r.statusCode).toBe(201);
    expect(r.json().redirect_url).toBe('http://localhost:3000/done');
  });

  const invalid: [string, string, string][] = [
    ['not a URL', 'URL must be an absolute http or https URL', 'url_parsing'],
    ['ftp://shop.example.com/x', 'URL must be an absolute http or https URL', 'url_scheme'],
    ['https://user:pw@shop.example.com/x', 'URL must not contain credentials', 'url_credentials'],
  ];
  for (const [value, msg, type] of invalid) {
    it(`refuses ${value} with 422`, async () => {
      const r = await post(s.ctx, s.w, { redirect_url: value });
      expect(r.statusCode).toBe(422);
      expect(r.json().detail).toEqual([{ loc: ['body', 'redirect_url'], msg, type }]);
    });
  }

  it('is part of the idempotent request: the same key with another redirect_url is 409', async () => {
    const key = newKey();
    expect((await post(s.ctx, s.w, { redirect_url: 'https://shop.example.com/a' }, key)).statusCode).toBe(
      201,
    );
    expect((await post(s.ctx, s.w, { redirect_url: 'https://shop.example.com/a' }, key)).statusCode).toBe(
      200,
    );
    expect((await post(s.ctx, s.w, { redirect_url: 'https://shop.example.com/b' }, key)).statusCode).toBe(
      409,
    );
  });

  it('is documented on the operation, with the advice to read the transaction on return', async () => {
    const doc = (await s.ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
    const op = doc.paths['/api/v1/checkout/paylink'].post;
    const ref = op.requestBody.content['application/json'].schema.$ref.split('/').pop();
    const field = doc.components.schemas[ref].properties.redirect_url;
    expect(field.description).toContain('read the transaction');
    expect(op.description).toContain('read the transaction on return');
  });
});

describe('checkout page: reference and sandbox badge', () => {
  it('shows the ref_id as the payment reference, the same value the bank page shows', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const checkout = await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    // Rendered in nowrap parts (evenlyBreakable) whose text is the ref_id itself.
    const shown = (body: string) =>
      /<dt>Payment reference<\/dt><dd class="ident">(.*?)<\/dd>/.exec(body)?.[1]?.replace(/<[^>]+>/g, '');
    expect(shown(checkout.body)).toBe(t.ref_id);
    const bankUrl = await pickBank(s.ctx, t.checkout_url);
    const bank = await s.ctx.app.inject({ url: new URL(bankUrl).pathname });
    expect(shown(bank.body)).toBe(t.ref_id);
  });

  it('shows the Sandbox badge in the sandbox', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const checkout = await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(checkout.body).toContain('class="env-badge"');
    const missing = await s.ctx.app.inject({ url: '/checkout/this-token-does-not-exist' });
    expect(missing.body).toContain('class="env-badge"');
  });

  it('no badge on a page rendered for production', () => {
    expect(errorPage('Payment not found', 'x', undefined, { sandbox: false })).not.toContain('env-badge');
  });
});

describe('production', () => {
  let prod: TestContext;
  let pw: PaymentWorld;
  beforeAll(async () => {
    prod = await createTestApp({ env: { ...PRODUCTION_ENV } });
    pw = await createPaymentWorld(prod, {
      productionAccess: true,
      callbackUrl: 'https://shop.example.com/b',
    });
  });
  afterAll(() => prod?.close());

  it('redirect_url must be https', async () => {
    const r = await post(prod, pw, { redirect_url: 'http://shop.example.com/x' });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toEqual([
      { loc: ['body', 'redirect_url'], msg: 'URL must be an absolute https URL', type: 'url_scheme' },
    ]);
  });

  it('callback_url must be https too (like redirect_url and the webhook URL)', async () => {
    const put = (callback_url: string) =>
      prod.app.inject({
        method: 'PUT',
        url: '/api/v1/auth/client/settings',
        headers: pw.caller.headers,
        payload: { callback_url },
      });
    const http = await put('http://shop.example.com/back');
    expect(http.statusCode).toBe(422);
    expect(http.json().detail).toEqual([
      { loc: ['body', 'callback_url'], msg: 'URL must be an absolute https URL', type: 'url_scheme' },
    ]);
    const https = await put('https://shop.example.com/back');
    expect(https.statusCode).toBe(200);
    expect(https.json().callback_url).toBe('https://shop.example.com/back');
  });

  it('the checkout pages show no Sandbox badge', async () => {
    const r = await prod.app.inject({ url: '/checkout/this-token-does-not-exist' });
    expect(r.statusCode).toBe(404);
    expect(r.body).toContain('Payment not found');
    expect(r.body).not.toContain('env-badge');
  });
});
