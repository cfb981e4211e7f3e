/** The hosted checkout's HTML behaviour without a browser: escaping, bad links, payer cancel, bad bank choice. */
import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from '../../src/shared/html';
import { paymentApp } from '../helpers/suites';
import { createPaylink, createPaymentWorld, setClient, tokenOf } from './fixtures';

const s = paymentApp({ world: { callbackUrl: 'https://shop.example.com/back?cart=7' } });

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('hosted checkout pages', () => {
  it('escapes every interpolated value', async () => {
    expect(escapeHtml(`<a href="x">'&`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
    expect(html`<p>${'<script>'}</p>`.value).toBe('<p>&lt;script&gt;</p>');
    await setClient(s.ctx, s.w.caller.clientId, { companyName: '<img src=x onerror=alert(1)>' });
    const t = await createPaylink(s.ctx, s.w, { description: '"><script>alert(1)</script>' });
    const page = await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>alert(1)</script>');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    await setClient(s.ctx, s.w.caller.clientId, { companyName: 'Acme Shop' });
  });

  it('is accessible: labelled bank radios in a fieldset, a lang, a main landmark', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const body = (await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname })).body;
    expect(body).toContain('<html lang="en">');
    expect(body).toContain('<main id="content">');
    expect(body).toContain('<legend>Your bank</legend>');
    expect(body).toMatch(/<label class="bank" for="bank-sandbox-bank">/);
    expect(body).toContain('name="viewport"');
    // The footer names whose page this is without sounding as if the payment were already made.
    expect(body).toContain('<footer>Payment page for Acme Shop.</footer>');
    const css = await s.ctx.app.inject({ url: '/checkout/assets/checkout.css' });
    expect(css.statusCode).toBe(200);
    expect(css.body).toContain(':focus-visible');
  });

  it('an unknown link is a 404 page', async () => {
    const r = await s.ctx.app.inject({ url: '/checkout/this-token-does-not-exist' });
    expect(r.statusCode).toBe(404);
    expect(r.headers['content-type']).toContain('text/html');
    expect(r.body).toContain('Payment not found');
  });

  it('no bank chosen re-renders the page with an error (422)', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const r = await s.ctx.app.inject({
      method: 'POST',
      url: `/checkout/${tokenOf(t.checkout_url)}/bank`,
      headers: form,
      payload: 'bank_id=nope',
    });
    expect(r.statusCode).toBe(422);
    expect(r.body).toContain('Choose your bank to continue.');
  });

  it('the payer cancels: canceled and redirected with transaction_id appended to the existing query', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const r = await s.ctx.app.inject({ method: 'POST', url: `/checkout/${tokenOf(t.checkout_url)}/cancel` });
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(
      `https://shop.example.com/back?cart=7&transaction_id=${t.transaction_id}`,
    );
    const tx = await s.ctx.app.inject({
      url: `/api/v1/transactions/${t.transaction_id}`,
      headers: s.w.caller.headers,
    });
    expect(tx.json()).toMatchObject({ status: 'canceled', status_reason: 'Canceled by the payer' });
    const events = await s.ctx.app.inject({
      url: `/api/v1/transactions/${t.transaction_id}/status-events`,
      headers: s.w.caller.headers,
    });
    expect(events.json().status_events.at(-1)).toMatchObject({
      actor_type: null,
      previous_status: 'pending',
      status: 'canceled',
    });
    // the link now shows the result page, with a way back to the merchant
    const page = await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.body).toContain('Payment canceled');
    expect(page.body).toContain(
      `https://shop.example.com/back?cart=7&amp;transaction_id=${t.transaction_id}`,
    );
  });

  it('a callback_url that already carries transaction_id is kept as is', async () => {
    const o = await createPaymentWorld(s.ctx, {
      callbackUrl: 'https://shop.example.com/r?transaction_id=mine',
    });
    const t = await createPaylink(s.ctx, o);
    const r = await s.ctx.app.inject({ method: 'POST', url: `/checkout/${tokenOf(t.checkout_url)}/cancel` });
    expect(r.headers.location).toBe('https://shop.example.com/r?transaction_id=mine');
  });

  it('the bank page refuses an unknown outcome and an unknown transfer', async () => {
    const bad = await s.ctx.app.inject({ url: '/sandbox-bank/authorize/trf_nope' });
    expect(bad.statusCode).toBe(404);
    const t = await createPaylink(s.ctx, s.w);
    const pick = await s.ctx.app.inject({
      method: 'POST',
      url: `/checkout/${tokenOf(t.checkout_url)}/bank`,
      headers: form,
      payload: 'bank_id=sandbox-bank',
    });
    const bankPath = new URL(pick.headers.location as string).pathname;
    const r = await s.ctx.app.inject({
      method: 'POST',
      url: bankPath,
      headers: form,
      payload: 'outcome=steal',
    });
    expect(r.statusCode).toBe(422);
    // once decided, the session is closed
    await s.ctx.app.inject({
      method: 'POST',
      url: bankPath,
      headers: form,
      payload: 'outcome=insufficient_funds',
    });
    const again = await s.ctx.app.inject({
      method: 'POST',
      url: bankPath,
      headers: form,
      payload: 'outcome=approve',
    });
    expect(again.statusCode).toBe(410);
    const tx = await s.ctx.app.inject({
      url: `/api/v1/transactions/${t.transaction_id}`,
      headers: s.w.caller.headers,
    });
    expect(tx.json()).toMatchObject({ status: 'failed', provider_status: 'rejected_insufficient_funds' });
  });

  it('the bank timeout outcome expires a processing payment', async () => {
    const t = await createPaylink(s.ctx, s.w);
    const pick = await s.ctx.app.inject({
      method: 'POST',
      url: `/checkout/${tokenOf(t.checkout_url)}/bank`,
      headers: form,
      payload: 'bank_id=harbor-credit-union',
    });
    const done = await s.ctx.app.inject({
      method: 'POST',
      url: new URL(pick.headers.location as string).pathname,
      headers: form,
      payload: 'outcome=timeout',
    });
    expect(done.statusCode).toBe(303);
    const back = await s.ctx.app.inject({ url: new URL(done.headers.location as string).pathname });
    // The outcome on the checkout first, its button back to the merchant.
    expect(back.headers.location).toBe(`/checkout/${tokenOf(t.checkout_url)}`);
    // The payer had reached the bank, so an expiry there may hide a debit (as with Token.io's
    // INITIATION_EXPIRED): expired, held for manual review, and the payer is told not to pay again.
    const result = await s.ctx.app.inject({ url: back.headers.location as string });
    expect(result.body).toContain('Confirming your payment');
    expect(result.body).toContain('Do not pay again');
    expect(result.body).toContain(
      `href="https://shop.example.com/back?cart=7&amp;transaction_id=${t.transaction_id}"`,
    );
    const tx = await s.ctx.app.inject({
      url: `/api/v1/transactions/${t.transaction_id}`,
      headers: s.w.caller.headers,
    });
    expect(tx.json()).toMatchObject({
      status: 'expired',
      provider_status: 'expired',
      reconciliation_state: 'manual_review_required',
    });
  });
});
