/**
 * The payer back from the bank, in a real Chromium (sandbox bank):
 * - the bank has the payment but has not confirmed it yet: "Confirming your payment", no cancel
 *   button, and the page reloads itself (meta refresh, JavaScript off) until "Payment complete";
 * - a payment final at the return: the checkout shows the outcome with a "Return to …" button (as in
 *   production), never a straight redirect to the merchant's callback URL.
 * Screenshots go to CHECKOUT_SCREENSHOT_DIR when set.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { createPaylink, createPaymentWorld, type PaymentWorld, simulate } from '../payments/fixtures';

const SHOTS = process.env.CHECKOUT_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('the payer back from the bank (Chromium)', () => {
  let ctx: TestContext;
  let w: PaymentWorld;
  let browser: Browser;
  let merchant: http.Server;
  let merchantBase: string;

  beforeAll(async () => {
    merchant = http.createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Merchant</title><h1>Thanks</h1>'),
    );
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

  it('approved at the bank, not confirmed yet: "Confirming your payment" reloads itself until complete (no JavaScript)', async () => {
    const t = await createPaylink(ctx, w, { amount: '42.00' });
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 1000, height: 760 },
    });
    const page = await context.newPage();
    try {
      await page.goto(t.checkout_url);
      await page.getByLabel('Northwind Bank').check();
      await page.getByRole('button', { name: /Continue to bank/ }).click();
      await page.waitForURL(/\/sandbox-bank\/authorize\//);
      // The payer approved: the bank executes the payment, its final answer comes a moment later.
      await simulate(ctx, w, t.transaction_id, 'processing');
      const token = new URL(t.checkout_url).pathname.split('/').pop()!;
      await page.goto(`${new URL(t.checkout_url).origin}/checkout/${token}/return`);
      await page.getByRole('heading', { level: 1, name: 'Confirming your payment' }).waitFor();
      expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
      expect(await page.getByText('Finish approving it there').count()).toBe(0);
      const refresh = await page.locator('meta[http-equiv="refresh"]').getAttribute('content');
      expect(refresh).toMatch(/^3;url=\/checkout\/[^?]+\?returned=1$/);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/checkout-confirming.png`, fullPage: true });
      // A reload (by hand or by the meta refresh) while the bank has the payment: still no cancel.
      await page.goto(t.checkout_url);
      await page.getByRole('heading', { level: 1, name: 'Confirming your payment' }).waitFor();
      expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
      // The bank confirms: the page gets there by itself.
      await simulate(ctx, w, t.transaction_id, 'completed');
      await page.getByRole('heading', { level: 1, name: 'Payment complete' }).waitFor({ timeout: 10_000 });
      expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0);
      if (SHOTS)
        await page.screenshot({ path: `${SHOTS}/checkout-complete-after-confirming.png`, fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('approved in the sandbox: "Payment complete" with a Return button first, then the merchant', async () => {
    const t = await createPaylink(ctx, w, { amount: '43.00' });
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    try {
      await page.goto(t.checkout_url);
      await page.getByLabel('Sandbox Bank').check();
      await page.getByRole('button', { name: /Continue to bank/ }).click();
      await page.waitForURL(/\/sandbox-bank\/authorize\//);
      await page.getByRole('button', { name: 'Approve payment', exact: true }).click();
      await page.waitForURL(/\/checkout\/[^/]+$/);
      await page.getByRole('heading', { level: 1, name: 'Payment complete' }).waitFor();
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/checkout-sandbox-complete.png`, fullPage: true });
      await page.getByRole('link', { name: /^Return to / }).click();
      await page.waitForURL(`${merchantBase}/**`);
      const back = new URL(page.url());
      expect(back.pathname).toBe('/shop/return');
      expect(back.searchParams.get('order')).toBe('42');
      expect(back.searchParams.get('transaction_id')).toBe(t.transaction_id);
    } finally {
      await page.close();
    }
  });
});
