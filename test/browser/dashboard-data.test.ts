/**
 * The dashboard's data layer (packages/dashboard/src/query.ts) in Chromium against the real service:
 * a skeleton until the list answers, a failed load said for people with the API's detail one click
 * away (and "Try again"), a mutation that refreshes the list on screen without a page load, polling
 * that stops while the tab is hidden and resumes (with a refetch) when it is shown again, and a
 * canceled payment badged apart from a failed one.
 */
import type { Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loginOk, type Session } from '../helpers/auth-flow';
import { hasChromium } from '../helpers/browser';
import { expectAccessible } from '../helpers/dashboard';
import { dashboardSuite, type SignInOptions } from '../helpers/dashboard-suite';
import { insertOpco, insertProject, insertUser, newKey, setClient } from '../payments/fixtures';

describe.skipIf(!hasChromium)('dashboard data layer', () => {
  const s = dashboardSuite();
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

  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await s.ctx.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: { ...session.headers, 'x-idempotency-key': newKey() },
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };
  const paylink = (amount: string, description: string) =>
    call('POST', '/checkout/paylink', {
      amount,
      currency: 'EUR',
      project_id: projectId,
      user_id: userId,
      description,
    }) as Promise<{ transaction_id: string }>;

  /** The payments list request (not a payment's own URL). */
  const isList = (url: URL) => url.pathname === '/api/v1/transactions';

  const signedIn = async (path: string, heading: string | RegExp, o: SignInOptions = {}) =>
    (await s.signedIn(path, heading, o)).page;

  it('shows a skeleton until the list answers; a failed load in words, the detail under Details, and Try again', async () => {
    const failed = await paylink('10.00', 'Failed at the bank');
    await call('POST', `/sandbox/transactions/${failed.transaction_id}/simulate`, { outcome: 'failed' });
    const canceled = await paylink('11.00', 'Canceled by us');
    await call('POST', `/checkout/intent/${canceled.transaction_id}/cancel`, {});

    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const page = await signedIn('/payments', 'Payments', {
      prepare: (p) =>
        p.route(isList, async (route: Route) => {
          await held;
          await route.continue();
        }),
    });
    // The list is held: its skeleton is on screen, announced as loading the payments.
    const skeleton = page.getByTestId('skeleton');
    await skeleton.waitFor();
    expect(await skeleton.getAttribute('aria-busy')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Loading the payments' }).count()).toBe(1);
    expect(await page.getByRole('table').count()).toBe(0);
    release();
    await page.getByRole('link', { name: /Canceled by us/ }).waitFor();
    await skeleton.waitFor({ state: 'detached' });
    await page.unroute(isList);

    // Canceled is not shown as a failure: its own badge, another colour than failed.
    const badge = (text: string) => page.getByRole('row').filter({ hasText: text }).locator('.badge');
    expect(await badge('Canceled by us').textContent()).toBe('canceled');
    expect(await badge('Failed at the bank').textContent()).toBe('failed');
    const look = (text: string) =>
      badge(text).evaluate((el) => {
        // Runs in the page (window is globalThis there).
        type Style = { color: string; backgroundColor: string; borderStyle: string };
        const c = (globalThis as unknown as { getComputedStyle(e: unknown): Style }).getComputedStyle(el);
        return `${c.color} ${c.backgroundColor} ${c.borderStyle}`;
      });
    expect(await look('Canceled by us')).not.toBe(await look('Failed at the bank'));
    await expectAccessible(page, 'payments with canceled and failed badges');

    // The service fails: a sentence for people, the API's own detail under Details; Try again recovers.
    await page.route(isList, (route: Route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ detail: 'Service temporarily unavailable' }),
      }),
    );
    await page.getByLabel('Status').selectOption('failed');
    const alert = page.getByRole('alert').filter({ hasText: "We couldn't load the payments" });
    await alert.waitFor();
    expect(await alert.getByText('Service temporarily unavailable').isVisible()).toBe(false);
    await alert.getByText('Details').click();
    await alert.getByText('Service temporarily unavailable (HTTP 503)').waitFor();
    await expectAccessible(page, 'payments load error');
    await page.unroute(isList);
    await alert.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('link', { name: /Failed at the bank/ }).waitFor();
    expect(await page.getByRole('link', { name: /Canceled by us/ }).count()).toBe(0);
    await page.context().close();
  }, 120_000);

  it('a mutation refreshes the list on screen without a page load', async () => {
    const page = await signedIn('/customers', 'Customers');
    await page.evaluate(`window.marker = 'same document'`);
    const email = `new-payer-${newKey()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('First name').fill('Nina');
    await page.getByRole('button', { name: 'Add payer' }).click();
    await page.getByRole('cell', { name: email }).waitFor();
    expect(await page.evaluate('window.marker')).toBe('same document');
    await page.context().close();
  }, 60_000);

  it('stops polling while the tab is hidden and refetches when it is shown again', async () => {
    // The page's clock runs, and the test jumps it past the poll interval instead of waiting for it.
    const page = await signedIn('/payments', 'Payments', { clock: true });
    await page.getByRole('table').waitFor();
    let requests = 0;
    page.on('request', (r) => {
      if (isList(new URL(r.url()))) requests++;
    });
    // What the browser does when the tab goes to the background: the state, then the (bubbling) event.
    const setVisibility = (state: 'hidden' | 'visible') =>
      page.evaluate(`
        Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true });
        document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
      `);

    // Visible: the list polls every 5 s.
    await page.clock.fastForward(5_500);
    await expect.poll(() => requests, { timeout: 8000 }).toBeGreaterThan(0);
    await setVisibility('hidden');
    await page.waitForTimeout(300);
    const atHide = requests;
    // Two poll intervals pass while hidden (each jump fires a due interval timer once).
    await page.clock.fastForward(6_500);
    await page.clock.fastForward(6_500);
    await page.waitForTimeout(300);
    expect(requests, 'no poll while hidden').toBe(atHide);
    // Shown again: the stale list refetches at once, without waiting for the next tick.
    await setVisibility('visible');
    await expect.poll(() => requests, { timeout: 2000 }).toBeGreaterThan(atHide);
    await page.context().close();
  }, 60_000);
});
