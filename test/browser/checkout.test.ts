/**
 * A real headless Chromium pays through the hosted checkout: bank choice, the sandbox bank's
 * authorization page, the outcome on the checkout, and its way back to the merchant's callback_url.
 * Skips (with a message) only when no Chromium is installed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { createPaylink, createPaymentWorld, type PaymentWorld } from '../payments/fixtures';

const SHOTS = process.env.CHECKOUT_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('hosted checkout in Chromium', () => {
  let ctx: TestContext;
  let w: PaymentWorld;
  let browser: Browser;
  let merchant: http.Server;
  let merchantBase: string;
  const landed: string[] = [];

  beforeAll(async () => {
    merchant = http.createServer((req, res) => {
      landed.push(req.url ?? '');
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Merchant</title><h1>Thanks</h1>');
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
    merchantBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    w = await createPaymentWorld(ctx, { callbackUrl: `${merchantBase}/shop/return?order=42` });
    browser = await launchChromium();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      merchant: () => new Promise((r) => merchant?.close(r)),
    }),
  );

  async function statusOf(id: string) {
    const r = await ctx.app.inject({ url: `/api/v1/transactions/${id}`, headers: w.caller.headers });
    return r.json().status as string;
  }

  const outcomes = [
    { name: 'success', button: 'Approve payment', status: 'success', bank: 'Northwind Bank' },
    { name: 'rejection', button: 'Reject payment', status: 'failed', bank: 'Sandbox Bank' },
    {
      name: 'cancel at the bank',
      button: 'Cancel and return to merchant',
      status: 'canceled',
      bank: 'Harbor Credit Union',
    },
  ];

  for (const o of outcomes) {
    it(`completes a payment: ${o.name}`, async () => {
      const t = await createPaylink(ctx, w, { amount: '1250.00', description: 'Order #42 — 2 items' });
      const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
      try {
        await page.goto(t.checkout_url);
        await expect(page.getByRole('heading', { name: 'Pay by bank' }).isVisible()).resolves.toBe(true);
        expect(await page.textContent('.amount')).toBe('€1,250.00');
        await page.getByLabel(o.bank).check();
        if (SHOTS && o.name === 'success')
          await page.screenshot({ path: `${SHOTS}/checkout.png`, fullPage: true });
        await page.getByRole('button', { name: /Continue to bank/ }).click();
        await page.waitForURL(/\/sandbox-bank\/authorize\//);
        await expect(page.getByRole('heading', { name: 'Approve this payment' }).isVisible()).resolves.toBe(
          true,
        );
        if (SHOTS && o.name === 'success')
          await page.screenshot({ path: `${SHOTS}/bank.png`, fullPage: true });
        await page.getByRole('button', { name: o.button, exact: true }).click();
        // Back on the checkout first (sandbox like production): the outcome, then the way back.
        await page.waitForURL(/\/checkout\/[^/]+$/);
        await page
          .getByRole('heading', {
            level: 1,
            name: { success: 'Payment complete', failed: 'Payment failed', canceled: 'Payment canceled' }[
              o.status
            ],
          })
          .waitFor();
        await page.getByRole('link', { name: /^Return to / }).click();
        await page.waitForURL(`${merchantBase}/**`);
        const final = new URL(page.url());
        expect(final.pathname).toBe('/shop/return');
        expect(final.searchParams.get('order')).toBe('42');
        expect(final.searchParams.get('transaction_id')).toBe(t.transaction_id);
        expect(landed.filter((u) => u.startsWith('/shop')).at(-1)).toBe(
          `/shop/return?order=42&transaction_id=${t.transaction_id}`,
        );
        expect(await statusOf(t.transaction_id)).toBe(o.status);
        // coming back to the link shows the result page
        await page.goto(t.checkout_url);
        if (SHOTS && o.name === 'success')
          await page.screenshot({ path: `${SHOTS}/result.png`, fullPage: true });
        const heading = await page.getByRole('heading', { level: 1 }).textContent();
        expect(heading).toBe(
          { success: 'Payment complete', failed: 'Payment failed', canceled: 'Payment canceled' }[o.status],
        );
      } finally {
        await page.close();
      }
    });
  }

  it('keeps the payment reference whole or breaks it evenly at every desktop width', async () => {
    const t = await createPaylink(ctx, w, { amount: '1250.00', description: 'Order #42 — 2 items' });
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    // The characters of the reference on each rendered line (evaluated in the page: no DOM types here).
    const lines = () =>
      page.evaluate<number[]>(`(() => {
        const dd = [...document.querySelectorAll('dt')].find((d) => d.textContent === 'Payment reference')
          .nextElementSibling;
        const perLine = new Map();
        const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode())
          for (let i = 0; i < n.length; i++) {
            const r = document.createRange();
            r.setStart(n, i);
            r.setEnd(n, i + 1);
            const top = Math.round(r.getBoundingClientRect().top);
            perLine.set(top, (perLine.get(top) ?? 0) + 1);
          }
        return [...perLine.values()];
      })()`);
    try {
      await page.goto(t.checkout_url);
      const refLength = t.ref_id.length;
      let narrowest: number[] = [];
      // Two columns from 761 px up: the summary card narrows with the window.
      for (let width = 770; width <= 1100; width += 10) {
        await page.setViewportSize({ width, height: 800 });
        const perLine = await lines();
        expect(perLine.reduce((a, b) => a + b, 0)).toBe(refLength);
        // Whole on one line, or split into parts of at least a third each: never a lone tail.
        expect(Math.min(...perLine), `${width} px: ${perLine.join('+')}`).toBeGreaterThanOrEqual(
          refLength / 3,
        );
        if (width === 770) narrowest = perLine;
      }
      await page.setViewportSize({ width: 770, height: 800 });
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/checkout-770.png`, fullPage: true });
      expect(narrowest.length).toBeGreaterThanOrEqual(1);
      // The reference copies as one string, whatever the breaks.
      const text = await page
        .locator('dt', { hasText: 'Payment reference' })
        .locator('xpath=following-sibling::dd[1]')
        .textContent();
      expect(text).toBe(t.ref_id);
    } finally {
      await page.close();
    }
  });

  it('the payer cancels on the checkout page before choosing a bank (mobile viewport)', async () => {
    const t = await createPaylink(ctx, w);
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    try {
      await page.goto(t.checkout_url);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/checkout-mobile.png`, fullPage: true });
      await page.getByRole('button', { name: /Cancel payment/ }).click();
      await page.waitForURL(`${merchantBase}/**`);
      expect(new URL(page.url()).searchParams.get('transaction_id')).toBe(t.transaction_id);
      expect(await statusOf(t.transaction_id)).toBe('canceled');
    } finally {
      await page.close();
    }
  });
});
