/**
 * The dashboard session in Chromium: the access token only in memory, the refresh token in
 * sessionStorage (never localStorage), rotation on expiry without the user noticing, a reload that
 * keeps the session, a re-login dialog over the page when the refresh token is gone too, the API's
 * own error messages, and a logout that clears everything.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createTestApp, type TestContext } from '../helpers/app';
import { registerVerified } from '../helpers/auth-flow';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { ensureDashboardBuilt, expectAccessible } from '../helpers/dashboard';
import { freePort } from '../helpers/process';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';
import { insertOpco, insertProject, insertUser } from '../payments/fixtures';

const REFRESH_KEY = 'svc.dashboard.refresh';

describe.skipIf(!hasChromium)('dashboard session', () => {
  let ctx: TestContext;
  let smtp: SmtpCapture;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    ensureDashboardBuilt();
    smtp = await startSmtpCapture();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestApp({ mailer: smtp.mailer, env: { SVC_PUBLIC_URL: base } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    browser = await launchChromium();
  }, 180_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      smtp: () => smtp?.close(),
    }),
  );

  it('rotates on expiry, survives a reload, re-logs in over the page, shows API errors, logs out', async () => {
    const owner = await registerVerified(ctx, smtp);
    const opcoId = await insertOpco(ctx, owner.clientId);
    await insertProject(ctx, owner.clientId, opcoId);
    await insertUser(ctx, owner.clientId);

    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    const log: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/v1/'))
        log.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });
    onTestFailed(async () => {
      console.log('API calls:', log.join('\n'));
      console.log(
        'alerts:',
        await page
          .getByRole('alert')
          .allTextContents()
          .catch(() => []),
      );
    });
    const storage = () =>
      page.evaluate((k) => {
        // Runs in the page (the test's tsconfig has no DOM types).
        const w = globalThis as unknown as {
          sessionStorage: { getItem(k: string): string | null };
          localStorage: { length: number };
        };
        return { session: w.sessionStorage.getItem(k), local: w.localStorage.length };
      }, REFRESH_KEY);

    await page.goto(`${base}/dashboard/payments/new`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back where the visitor was headed.
    await page.getByRole('heading', { level: 1, name: 'Create payment link' }).waitFor();
    const first = await storage();
    expect(first.session).toBeTruthy();
    expect(first.local).toBe(0);

    // The API's own message (no callback URL configured yet).
    await page.getByLabel('Amount').fill('10.00');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('alert').filter({ hasText: 'Callback URL is not set' }).waitFor();
    await expectAccessible(page, 'create payment link with an error');

    // The 30-minute access token expires: the next call refreshes (rotation) and is retried.
    ctx.clock.advanceSeconds(31 * 60);
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('alert').filter({ hasText: 'Callback URL is not set' }).waitFor();
    await expect.poll(async () => (await storage()).session).not.toBe(first.session);
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);

    // A reload keeps the session (refresh token from sessionStorage) and the page.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Create payment link' }).waitFor();

    // Refresh token expired too: a sign-in dialog over the page; what was typed stays.
    await page.getByLabel('Amount').fill('12.00');
    await page.getByLabel('Description (optional)').fill('Kept while signing in again');
    ctx.clock.advanceSeconds(31 * 24 * 3600);
    await page.getByRole('button', { name: 'Create link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.waitFor();
    await expectAccessible(page, 're-login dialog');
    await dialog.getByLabel('Password').fill(owner.password);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Callback URL is not set' }).waitFor();
    await expect(dialog.count()).resolves.toBe(0);
    expect(await page.getByLabel('Description (optional)').inputValue()).toBe('Kept while signing in again');

    // Logout revokes and forgets the tokens.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await storage()).session).toBeNull();
    await page.goto(`${base}/dashboard/payments`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await context.close();
  }, 120_000);
});
