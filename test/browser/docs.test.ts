/**
 * The API reference pages in a real headless Chromium: /docs renders the merchant API with Scalar's
 * bundle served by the service itself (the machine has no network), under a strict CSP, and the
 * paylink operation can be found and read; /docs/staff renders the staff document. The guides
 * (/docs/guides, rendered from docs/guides/*.md) open from the reference page, pass axe, and every
 * link between them reaches a served page and an existing anchor.
 */
import zlib from 'node:zlib';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { expectAccessible } from '../helpers/dashboard';
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
  async function open(
    url: string,
    o: { withoutScalar?: boolean } = {},
  ): Promise<{ page: Page; problems: string[] }> {
    // A context of its own: axe-core's Playwright builder needs one (browser.newPage has none).
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (o.withoutScalar)
      await context.route('**/docs/assets/scalar.js', (r) =>
        r.fulfill({ status: 200, contentType: 'application/javascript', body: '' }),
      );
    const page = await context.newPage();
    page.on('close', () => {
      context.close().catch(() => {}); // already gone when the browser closed first
    });
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
        .poll(() => op.getByText(/X-Idempotency-Key'?: '?order-42-attempt-1/i).count(), { timeout: 30_000 })
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

  it('shows every operation at once, before the reference has loaded, and sends the large files compressed', async () => {
    const res = await ctx.app.inject({ url: '/docs' });
    // The outline is in the HTML itself: a reader sees the operations while Scalar loads.
    expect(res.body).toContain('<h2>Payments</h2>');
    expect(res.body).toMatch(/<code>POST \/api\/v1\/checkout\/paylink<\/code> Create a payment link/);
    expect(res.body.indexOf('<h2>Auth')).toBeLessThan(res.body.indexOf('<h2>Payments'));
    const plain = await ctx.app.inject({ url: '/docs/assets/scalar.js' });
    const br = await ctx.app.inject({
      url: '/docs/assets/scalar.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const doc = await ctx.app.inject({ url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    expect(doc.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(doc.rawPayload).toString()).openapi).toMatch(/^3\.1/);
  });
  it('the guides open from the reference page, render under the CSP and pass axe', async () => {
    // The reference's navigation is in the page's own HTML; Scalar's rendering of the whole document
    // (the first test's subject, and most of this file's CPU) is left out here: its bundle answers empty.
    const { page, problems } = await open(`${base}/docs`, { withoutScalar: true });
    try {
      await page
        .getByRole('navigation', { name: 'Documentation' })
        .getByRole('link', { name: 'Guides' })
        .click();
      await page.waitForURL(`${base}/docs/guides`);
      await page.getByRole('heading', { level: 1, name: 'Payments Platform guides' }).waitFor();
      await expectAccessible(page, '/docs/guides');
      const nav = page.getByRole('navigation', { name: 'Guides' });
      await nav.getByRole('link', { name: 'Payments and checkout' }).click();
      await page.waitForURL(`${base}/docs/guides/payments`);
      await page.getByRole('heading', { level: 1, name: 'Payments and checkout' }).waitFor();
      expect(
        await nav.getByRole('link', { name: 'Payments and checkout' }).getAttribute('aria-current'),
      ).toBe('page');
      // The status machine (a Mermaid block on the code host) drawn as its table of transitions.
      await page.getByRole('table', { name: 'Status transitions' }).first().waitFor();
      expect(await page.getByText('stateDiagram-v2').count()).toBe(0);
      await page.screenshot({ path: 'test-results/docs-payments-guide.png', fullPage: false });
      await page.getByRole('heading', { level: 2, name: 'Worked example' }).waitFor();
      await expectAccessible(page, '/docs/guides/payments');
      // A link into another guide's section lands on that heading.
      await page
        .locator('main a[href="/docs/guides/sandbox#payment-outcomes-and-manual-review"]')
        .first()
        .click();
      await page.waitForURL(`${base}/docs/guides/sandbox#payment-outcomes-and-manual-review`);
      await expect.poll(() => page.locator('#payment-outcomes-and-manual-review').isVisible()).toBe(true);
      await page.getByRole('banner').getByRole('link', { name: 'API reference' }).click();
      await page.waitForURL(`${base}/docs`);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('serves every guide with a strict CSP, and every link between guides reaches a page and an anchor', async () => {
    const index = await ctx.app.inject({ url: '/docs/guides' });
    expect(index.statusCode).toBe(200);
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(csp).not.toContain('unsafe-inline');
    expect(index.body).not.toContain('<script');
    const slugs = [...index.body.matchAll(/<li><a href="\/docs\/guides\/([a-z0-9-]+)"/g)].map((m) => m[1]!);
    expect(slugs).toEqual(
      expect.arrayContaining(['quickstart', 'payments', 'sandbox', 'operations', 'dashboard']),
    );
    const bodies = new Map<string, string>([['', index.body]]);
    for (const slug of slugs) {
      const res = await ctx.app.inject({ url: `/docs/guides/${slug}` });
      expect(res.statusCode, slug).toBe(200);
      bodies.set(slug, res.body);
    }
    const broken: string[] = [];
    for (const [slug, body] of bodies) {
      expect(body, slug).not.toMatch(/href="[^"]*\.md(#[^"]*)?"/);
      for (const [, target, anchor] of body.matchAll(/href="\/docs\/guides\/?([a-z0-9-]*)(?:#([^"]+))?"/g)) {
        const to = bodies.get(target!);
        if (to === undefined) broken.push(`${slug} -> ${target}`);
        else if (anchor && !to.includes(`id="${anchor}"`)) broken.push(`${slug} -> ${target}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
    expect((await ctx.app.inject({ url: '/docs/guides/no-such-guide' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ url: '/docs/guides/index' })).statusCode).toBe(404);
    const css = await ctx.app.inject({ url: '/docs/assets/guides.css' });
    expect(css.headers['content-type']).toContain('text/css');
    // The reference page links the guides.
    expect((await ctx.app.inject({ url: '/docs' })).body).toContain('href="/docs/guides"');
  });
});
