/**
 * Chromium against the real service: the sandbox simulation a tester means on a pending payment
 * (outcomes; raw statuses under "Advanced", where `completed` holds the payment for manual review,
 * which the dashboard shows and resolves with an outcome), amounts shown with every digit of their
 * decimal string, two payments of the same minute labelled apart, and our icon on the hosted
 * checkout and the dashboard with no console error.
 */
import type { ConsoleMessage, Page } from 'playwright-core';
import { beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { loginOk, type Session } from '../helpers/auth-flow';
import { hasChromium } from '../helpers/browser';
import { expectAccessible } from '../helpers/dashboard';
import { dashboardSuite } from '../helpers/dashboard-suite';
import { insertOpco, insertProject, insertUser, newKey, setClient } from '../payments/fixtures';

describe.skipIf(!hasChromium)('dashboard: sandbox simulation, amounts, labels, icon', () => {
  // Above the default maximum, to show an amount Number() cannot hold.
  const s = dashboardSuite({ env: { SVC_PAYMENT_MAX_AMOUNT: '999999999999999.99' } });
  let session: Session;
  let projectId: string;
  let userId: string;

  beforeAll(async () => {
    const { owner } = s;
    session = await loginOk(s.ctx, owner.email, owner.password);
    projectId = await insertProject(s.ctx, owner.clientId, await insertOpco(s.ctx, owner.clientId));
    userId = await insertUser(s.ctx, owner.clientId);
    await setClient(s.ctx, owner.clientId, { callbackUrl: 'https://shop.example.com/return' });
  }, 60_000);

  const paylink = async (amount: string) => {
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/paylink',
      headers: { ...session.headers, 'x-idempotency-key': newKey() },
      payload: { amount, currency: 'EUR', project_id: projectId, user_id: userId },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { transaction_id: string; checkout_url: string };
  };

  /** Console errors, failed requests and error answers of a page. */
  const watch = (page: Page) => {
    const problems: string[] = [];
    page.on('console', (m: ConsoleMessage) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
    });
    return problems;
  };

  /** The status and cache headers of every icon the page links to (fetched from here: the hosted pages' CSP allows no fetch). */
  const icons = async (page: Page) => {
    const hrefs = await page.evaluate<string[]>(
      `[...document.querySelectorAll('link[rel="icon"]')].map((l) => l.getAttribute('href'))`,
    );
    return Promise.all(
      hrefs.map(async (href) => {
        const r = await fetch(new URL(href, page.url()));
        return {
          href,
          status: r.status,
          type: r.headers.get('content-type'),
          cache: r.headers.get('cache-control'),
        };
      }),
    );
  };

  it('serves our icon to the hosted checkout, with caching, and the page logs no error', async () => {
    const t = await paylink('12.50');
    const page = await s.browser.newPage();
    const problems = watch(page);
    await page.goto(t.checkout_url);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await icons(page)).toEqual([
      {
        href: '/favicon.ico',
        status: 200,
        type: 'image/x-icon',
        cache: expect.stringMatching(/max-age=\d+/),
      },
      {
        href: '/favicon.svg',
        status: 200,
        type: 'image/svg+xml',
        cache: expect.stringMatching(/max-age=\d+/),
      },
    ]);
    // What a browser asks for on its own, and a revalidation by ETag.
    const ico = await fetch(`${s.base}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(Buffer.from(await ico.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    const again = await fetch(`${s.base}/favicon.ico`, {
      headers: { 'if-none-match': ico.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('simulates outcomes, explains raw statuses, resolves a manual review; amounts and labels', async () => {
    const big = await paylink('999999999999999.99');
    const first = await paylink('10.00');
    const second = await paylink('10.00');
    let problems: string[] = [];
    const { page, context } = await s.signedIn('/payments', 'Payments', {
      viewport: { width: 1280, height: 900 },
      prepare: (p) => {
        problems = watch(p);
      },
    });
    onTestFailed(() => console.log('problems:', problems));
    expect(await icons(page)).toEqual([
      expect.objectContaining({ href: '/favicon.ico', status: 200 }),
      expect.objectContaining({ href: '/favicon.svg', status: 200 }),
    ]);

    // Every digit of the decimal string (Number() would show €1,000,000,000,000,000.00).
    await page.getByRole('cell', { name: '€999,999,999,999,999.99' }).waitFor();
    // The two payments of this minute have different labels; the first 8 characters of their ids do not tell them apart.
    expect(first.transaction_id.slice(0, 4)).toBe(second.transaction_id.slice(0, 4));
    const labels = await page.getByRole('table').getByRole('link').allTextContents();
    expect(labels).toHaveLength(4); // with the first test's payment
    expect(new Set(labels).size).toBe(4);
    expect(labels).toContain(`Payment …${second.transaction_id.slice(-8)}`);

    // Detail of the big one: the same exact amount.
    await page.getByRole('link', { name: `Payment …${big.transaction_id.slice(-8)}` }).click();
    await page.getByText('€999,999,999,999,999.99').waitFor();
    await page.getByRole('link', { name: 'Back to payments' }).click();

    // The sandbox offers outcomes; the raw statuses are under "Advanced" with the out-of-order rule.
    await page.getByRole('link', { name: `Payment …${first.transaction_id.slice(-8)}` }).click();
    const sandbox = page.getByRole('region', { name: 'Sandbox simulation' });
    await sandbox.waitFor();
    const outcome = sandbox.getByLabel('Outcome');
    expect(await outcome.locator('option').allTextContents()).toEqual([
      'Success: the payer authorizes and the bank pays',
      'Rejected by the bank',
      'Rejected: insufficient funds',
      'Canceled by the payer',
      'Expired: the payer never authorizes',
    ]);
    await sandbox.getByText('Advanced: report one raw detail status').click();
    await sandbox.getByText(/held for manual review and no status webhook is sent/).waitFor();
    await expectAccessible(page, 'payment detail with the sandbox simulation');
    await sandbox.getByLabel('Detail status').selectOption('completed');
    await sandbox.getByRole('button', { name: 'Report status' }).click();
    await page.getByTestId('manual-review').waitFor();
    expect(await page.getByTestId('payment-status').textContent()).toBe('pending');
    await page.getByRole('heading', { name: 'Sandbox: resolve the manual review' }).waitFor();
    // Resolved through the same simulate route: the outcome's steps, in order.
    await sandbox.getByLabel('Outcome').selectOption('success');
    await sandbox.getByRole('button', { name: 'Simulate outcome' }).click();
    await expect.poll(() => page.getByTestId('payment-status').textContent()).toBe('success');
    expect(await page.getByTestId('manual-review').count()).toBe(0);
    await page.getByText('Bank confirmed the payment').waitFor();

    // Insufficient funds on the other one.
    await page.goto(`${s.base}/dashboard/payments/${second.transaction_id}`);
    await page
      .getByRole('region', { name: 'Sandbox simulation' })
      .getByLabel('Outcome')
      .selectOption('insufficient_funds');
    await page.getByRole('button', { name: 'Simulate outcome' }).click();
    await expect.poll(() => page.getByTestId('payment-status').textContent()).toBe('failed');
    await page.getByText('rejected_insufficient_funds').first().waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
