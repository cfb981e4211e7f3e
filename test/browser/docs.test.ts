/**
 * The API reference pages in a real headless Chromium: /docs renders the merchant API with Scalar's
 * bundle served by the service itself (the machine has no network), under a strict CSP, and the
 * paylink operation can be found and read; /docs/staff renders the staff document.
 */
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';

describe.skipIf(!hasChromium)('API reference pages in Chromium', () => {
  let ctx: TestContext;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: base } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
    }),
  );

  /** Opens a page and records what the browser refused or failed to load. */
  async function open(url: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text()))
        problems.push(m.text());
    });
    page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) problems.push(`off-site: ${r.url()}`);
    });
    await page.goto(url);
    return { page, problems };
  }

  it('/docs shows the merchant API and the paylink operation is found by search', async () => {
    const { page, problems } = await open(`${base}/docs`);
    try {
      // Rendering the whole document takes a while on a loaded machine.
      await page
        .getByRole('heading', { name: 'Payments Platform API', exact: true })
        .waitFor({ timeout: 90_000 });
      // Search (the sidebar's search box) for the paylink operation and open it.
      await page.getByRole('search').first().click();
      await page.keyboard.type('paylink');
      await page
        .getByRole('option', { name: /Create a payment link/ })
        .first()
        .click();
      await page.waitForURL(/#tag\/payments\/POST\/api\/v1\/checkout\/paylink$/);
      const op = page.locator('section[id$="tag/payments/POST/api/v1/checkout/paylink"]');
      await op.waitFor();
      await expect.poll(() => op.getByText('Create a payment link').first().isVisible()).toBe(true);
      await expect.poll(() => op.getByText('redirect_url', { exact: true }).first().isVisible()).toBe(true);
      expect(await op.getByText('read the transaction on return', { exact: false }).count()).toBeGreaterThan(
        0,
      );
      // The request sample sends a key (the document's example), not an empty header the API refuses.
      await expect
        .poll(() => op.getByText(/X-Idempotency-Key: order-42-attempt-1/i).count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      // Merchant API only: no staff routes on this page.
      expect(await page.getByText('/api/v1/admin/', { exact: false }).count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('/docs/staff shows the staff document', async () => {
    const { page, problems } = await open(`${base}/docs/staff`);
    try {
      await page
        .getByRole('heading', { name: 'Payments Platform staff and provider API', exact: true })
        .waitFor({ timeout: 90_000 });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('serves the page with a strict CSP and the bundle from the service', async () => {
    const res = await ctx.app.inject({ url: '/docs' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.body).toContain('data-url="/api/v1/openapi.json"');
    const js = await ctx.app.inject({ url: '/docs/assets/scalar.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toContain('javascript');
    expect(js.body).toContain('createApiReference');
  });
});
