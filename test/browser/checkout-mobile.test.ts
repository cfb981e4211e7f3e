/**
 * The hosted checkout on a 390 px wide phone, in a real headless Chromium: a long merchant name and
 * description, the Sandbox badge, the same payment reference (ref_id) on the checkout and on the
 * sandbox bank's page, no horizontal overflow on any page, and the payment's own redirect_url
 * honoured instead of the client's callback_url.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { createPaylink, createPaymentWorld, type PaymentWorld, setClient } from '../payments/fixtures';

const SHOTS = process.env.CHECKOUT_SCREENSHOT_DIR;
const WIDTH = 390;
const MERCHANT = 'Internationale Handelsgesellschaft für Fahrradzubehör und Outdoorbekleidung GmbH & Co. KG';
const DESCRIPTION =
  'Jahresabonnement Premium-Mitgliedschaft inklusive Versicherungsschutz, Bestellnummer 2026-000042-DE';

describe.skipIf(!hasChromium)('hosted checkout at 390 px in Chromium', () => {
  let ctx: TestContext;
  let w: PaymentWorld;
  let browser: Browser;
  let merchant: Receiver;
  let merchantBase: string;

  beforeAll(async () => {
    // The merchant's site the payer returns to.
    merchant = await startReceiver();
    merchantBase = merchant.url;
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    w = await createPaymentWorld(ctx, { callbackUrl: `${merchantBase}/shop/return` });
    await setClient(ctx, w.caller.clientId, { companyName: MERCHANT });
    browser = await launchChromium();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      merchant: () => merchant?.close(),
    }),
  );

  // Evaluated in the page (the test project has no DOM types).
  const scrollWidth = (page: Page) => page.evaluate<number>('document.scrollingElement.scrollWidth');
  /** Words of the page's main content that the browser split across lines (hyphens are break points). */
  const brokenWords = (page: Page) =>
    page.evaluate<string[]>(`(() => {
      const broken = [];
      const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of (n.textContent || '').matchAll(/[^\\s-]+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
      return broken;
    })()`);
  const fits = async (page: Page) => {
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);
    expect(await brokenWords(page)).toEqual([]);
  };
  const reference = (page: Page) =>
    page
      .locator('dt', { hasText: 'Payment reference' })
      .locator('xpath=following-sibling::dd[1]')
      .textContent();

  it('same reference on checkout and bank, Sandbox badge, no overflow, back to redirect_url', async () => {
    const t = await createPaylink(ctx, w, {
      amount: '1250.00',
      description: DESCRIPTION,
      redirect_url: `${merchantBase}/orders/42/paid`,
    });
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 844 } });
    try {
      await page.goto(t.checkout_url);
      await page.getByRole('heading', { name: 'Pay by bank' }).waitFor();
      expect(await page.locator('header .env-badge').textContent()).toBe('Sandbox');
      expect(await page.locator('header .env-badge').isVisible()).toBe(true);
      expect((await page.locator('header .merchant-logo').boundingBox())?.width).toBe(34);
      expect(await reference(page)).toBe(t.ref_id);
      await fits(page);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/checkout-390.png`, fullPage: true });

      await page.getByRole('button', { name: /Continue to bank/ }).click();
      await page.waitForURL(/\/sandbox-bank\/authorize\//);
      await page.getByRole('heading', { name: 'Approve this payment' }).waitFor();
      expect(await reference(page)).toBe(t.ref_id);
      await fits(page);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/bank-390.png`, fullPage: true });

      await page.getByRole('button', { name: 'Approve payment', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Payment complete' }).waitFor();
      await page.getByRole('link', { name: /^Return to / }).click();
      await page.waitForURL(`${merchantBase}/**`);
      expect(page.url()).toBe(`${merchantBase}/orders/42/paid?transaction_id=${t.transaction_id}`);
      expect(merchant.on(`/orders/42/paid?transaction_id=${t.transaction_id}`)).toHaveLength(1);
      expect(merchant.requests.filter((r) => r.path.startsWith('/shop/'))).toEqual([]);

      // the link afterwards: the result page, same reference, still no overflow
      await page.goto(t.checkout_url);
      await page.getByRole('heading', { name: 'Payment complete' }).waitFor();
      expect(await reference(page)).toBe(t.ref_id);
      await fits(page);
      const back = page.getByRole('link', { name: /Return to/ });
      expect(await back.getAttribute('href')).toBe(
        `${merchantBase}/orders/42/paid?transaction_id=${t.transaction_id}`,
      );
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/result-390.png`, fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('the unknown-link page fits too and names no merchant', async () => {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 844 } });
    try {
      const res = await page.goto(`${ctx.config.publicUrl}/checkout/this-token-does-not-exist`);
      expect(res?.status()).toBe(404);
      expect(await page.locator('header .merchant-name').textContent()).toBe('Secure payment');
      await fits(page);
    } finally {
      await page.close();
    }
  });
});
