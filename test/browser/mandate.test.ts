/**
 * A real headless Chromium authorizes a VRP mandate through the hosted page `/checkout/mandate/{token}`
 * and the sandbox bank's mandate page, returns to the merchant with `definition_id`; then a run
 * succeeds, and an on-demand run fails with insufficient funds and is retried. Also: rejection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { createPaymentWorld, newKey, type PaymentWorld } from '../payments/fixtures';
import { api, createRecurring, getRecurring, HOUR, runsOf, settleBank } from '../recurring/fixtures';

const SHOTS = process.env.CHECKOUT_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('hosted mandate authorization in Chromium', () => {
  let ctx: TestContext;
  let w: PaymentWorld;
  let browser: Browser;
  let merchant: http.Server;
  let merchantBase: string;

  beforeAll(async () => {
    merchant = http.createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Merchant</title><h1>Thanks</h1>');
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
    merchantBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    w = await createPaymentWorld(ctx, { callbackUrl: `${merchantBase}/shop/return` });
    browser = await launchChromium();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      merchant: () => new Promise((r) => merchant?.close(r)),
    }),
  );

  /** The text of the fact named `label` (a dt) on the page. */
  const fact = (page: Page, label: string) =>
    page.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]').textContent();

  async function authorizeInBrowser(
    url: string,
    bank: string,
    button: string,
    check?: { merchantPage(page: Page): Promise<void>; bankPage(page: Page): Promise<void> },
  ) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    try {
      await page.goto(url);
      await expect(page.getByRole('heading', { name: 'Authorize with your bank' }).isVisible()).resolves.toBe(
        true,
      );
      await check?.merchantPage(page);
      await page.getByLabel(bank).check();
      await page.getByRole('button', { name: 'Continue to bank' }).click();
      await page.waitForURL(/\/sandbox-bank\/mandates\//);
      await expect(page.getByRole('heading', { name: 'Authorize this mandate' }).isVisible()).resolves.toBe(
        true,
      );
      await check?.bankPage(page);
      await page.getByRole('button', { name: button, exact: true }).click();
      await page.waitForURL(`${merchantBase}/**`);
      return new URL(page.url());
    } finally {
      await page.close();
    }
  }

  it('authorizes the mandate, a run succeeds, a failed run is retried', async () => {
    const d = await createRecurring(ctx, w, { amount: '20.00' });
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const firstDate = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(`${today}T00:00:00Z`),
    );
    // Amount, currency and period together, as a payer reads them, and the first payment's date.
    const back = await authorizeInBrowser(d.authorization_url!, 'Northwind Bank', 'Authorize mandate', {
      async merchantPage(page) {
        expect(await page.textContent('.amount')).toBe('€20.00 per month');
        expect(await fact(page, 'First payment')).toBe(firstDate);
        expect(await fact(page, 'Maximum per payment')).toBe('€50.00');
        expect(await fact(page, 'Limit')).toBe('€100.00 per month');
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/mandate.png`, fullPage: true });
      },
      async bankPage(page) {
        expect(await fact(page, 'Maximum per payment')).toBe('€50.00');
        expect(await fact(page, 'Periodic limit')).toBe('€100.00 per month');
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/bank-mandate.png`, fullPage: true });
      },
    });
    expect(back.pathname).toBe('/shop/return');
    expect(back.searchParams.get('definition_id')).toBe(d.definition_id);
    expect(await getRecurring(ctx, w, d.definition_id)).toMatchObject({
      status: 'active',
      mandate: { status: 'authorized', bank_name: 'Northwind Bank' },
    });
    await settleBank(ctx, w);
    const [first] = await runsOf(ctx, w, d.definition_id);
    expect(first).toMatchObject({ status: 'succeeded' });
    // An on-demand run with .51: insufficient funds on attempt 1, then retried by hand.
    const run = await api(
      ctx,
      w,
      'POST',
      `/recurring-payments/${d.definition_id}/runs`,
      { amount: '5.51' },
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(run.statusCode).toBe(202);
    await settleBank(ctx, w);
    let r = (await runsOf(ctx, w, d.definition_id)).find((x) => x.run_id === run.json().run_id)!;
    expect(r).toMatchObject({
      status: 'retry_scheduled',
      failure_reason: 'insufficient_funds',
      will_retry: true,
    });
    const retry = await api(ctx, w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {
      run_id: r.run_id,
    });
    expect(retry.statusCode).toBe(202);
    await settleBank(ctx, w);
    r = (await runsOf(ctx, w, d.definition_id)).find((x) => x.run_id === r.run_id)!;
    expect(r.status).toBe('succeeded');
    expect(r.attempts.map((a) => a.trigger)).toEqual(['on_demand', 'manual_retry']);
    void HOUR;
  });

  it('the payer rejects at the bank: authorization_failed', async () => {
    const d = await createRecurring(ctx, w);
    await authorizeInBrowser(d.authorization_url!, 'Sandbox Bank', 'Reject');
    expect((await getRecurring(ctx, w, d.definition_id)).status).toBe('authorization_failed');
  });
});
