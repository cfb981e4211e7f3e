/**
 * The merchant dashboard in headless Chromium against the real service (Done-when flow of issue
 * 19): sign up, verify, enroll TOTP, sign in with it, create a payment link, pay it in a second tab
 * and watch it turn successful without a reload, create an API credential whose secret is shown
 * once, retry a failed webhook delivery, and check that a developer sees no payment-link button.
 * Screenshots at 1280 and 390 px go to test-results/dashboard-shots (gitignored).
 */
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { clients } from '../../src/db/schema/index';
import { currentTotp } from '../../src/modules/auth/mfa/totp.service';
import { createWebhookDeliveryWorker } from '../../src/workers/webhook-delivery';
import { createTestApp, type TestContext } from '../helpers/app';
import { uniqueEmail } from '../helpers/auth-flow';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import {
  ensureDashboardBuilt,
  expectAccessible,
  initialJsGzipBytes,
  screenshots,
} from '../helpers/dashboard';
import { freePort } from '../helpers/process';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';
import { insertOpco, insertProject, insertUser } from '../payments/fixtures';

describe.skipIf(!hasChromium)('merchant dashboard', () => {
  let ctx: TestContext;
  let smtp: SmtpCapture;
  let browser: Browser;
  let base: string;
  let merchant: Receiver;
  let hooks: Receiver;
  let hooksFail = true;

  beforeAll(async () => {
    ensureDashboardBuilt();
    smtp = await startSmtpCapture();
    merchant = await startReceiver(() => ({ status: 200, body: 'Thanks' }));
    hooks = await startReceiver(() => ({ status: hooksFail ? 500 : 200 }));
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
      merchant: () => merchant?.close(),
      hooks: () => hooks?.close(),
    }),
  );

  it('serves the app with long-lived assets, a strict CSP, SPA fallback and a small sign-in bundle', async () => {
    const index = await fetch(`${base}/dashboard/payments?status=success`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await index.text();
    const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(`${base}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Read to the end: an unread body holds its connection busy, and the app's close waits for it.
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect((await fetch(`${base}/dashboard/assets/..%2f..%2fpackage.json`)).status).toBe(404);
    const doc = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(doc.paths).filter((p) => p.includes('dashboard'))).toEqual([]);
    const kb = initialJsGzipBytes() / 1024;
    console.log(`dashboard sign-in page initial JS: ${kb.toFixed(1)} KB gzip`);
    expect(kb).toBeLessThan(200);
  });

  it('signs up, enrolls TOTP, takes a payment, shows a secret once, retries a webhook, limits a developer', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    onTestFailed(async () => {
      console.log(
        'alerts on the page:',
        await page
          .getByRole('alert')
          .allTextContents()
          .catch(() => []),
      );
      await page
        .screenshot({ path: 'test-results/dashboard-shots/failure.png', fullPage: true })
        .catch(() => {});
    });
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    const email = uniqueEmail('owner');
    const password = 'correct horse battery';
    const go = async (label: string, heading: string) => {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: label, exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    };

    // Registration and email verification.
    await page.goto(`${base}/dashboard/register`);
    await expectAccessible(page, 'register');
    await page.getByLabel('Company name').fill('Acme Payments Ltd');
    await page.getByLabel('Your full name').fill('Ada Owner');
    await page.getByLabel('Work email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
    // No SMTP_URL is configured (the test's mailer is injected): the page says where mail files go.
    expect(ctx.config.smtpUrl).toBeNull();
    await page
      .getByTestId('local-mail-hint')
      .filter({ hasText: `${ctx.config.dataDir}/mail` })
      .waitFor();
    await screenshots(page, 'verify-email');
    await page.getByLabel('Verification code').fill(await smtp.codeFor(email));
    await page.getByRole('button', { name: 'Verify email' }).click();
    await page.getByText('Email verified. You can sign in now.').waitFor();
    await expectAccessible(page, 'sign-in');
    await screenshots(page, 'sign-in');

    // First sign-in (no MFA yet): the verified email is filled in.
    expect(await page.getByLabel('Email').inputValue()).toBe(email);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // Settings: callback URL, then TOTP enrollment with the QR code, then MFA on for this account.
    await go('Settings', 'Settings');
    await page.getByLabel('Callback URL').fill(`${merchant.url}/shop/return`);
    await page.getByRole('button', { name: 'Save callback URL' }).click();
    await page.getByText('Saved.').first().waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel('Code from the app').fill(currentTotp(secret, ctx.clock.now()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Authenticator app enrolled.').waitFor();
    const mine = page.getByRole('form', { name: 'My sign-in security' });
    await mine.getByLabel('Use the company defaults').uncheck();
    await mine.getByLabel('Require a code at sign-in').check();
    await mine.getByLabel('Preferred method').selectOption('totp');
    await mine.getByRole('button', { name: 'Save my sign-in security' }).click();
    await mine.getByText('Saved.').waitFor();
    await expectAccessible(page, 'settings');
    await screenshots(page, 'settings');

    // Sign out, sign in again with the authenticator code.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    ctx.clock.advanceSeconds(60);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code').fill(currentTotp(secret, ctx.clock.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    // Seen once under a loaded parallel run (Overview never appeared after Verify, not reproduced
    // since): keep what the page showed if it happens again.
    await page
      .getByRole('heading', { level: 1, name: 'Overview' })
      .waitFor()
      .catch(async (err) => {
        await page.screenshot({
          path: 'test-results/dashboard-shots/totp-sign-in-failure.png',
          fullPage: true,
        });
        throw new Error(`${(err as Error).message}\npage text: ${await page.locator('body').innerText()}`);
      });

    // The merchant's activated opco, project and payer (their own pages are not part of this flow).
    const [client] = await ctx.db.select({ id: clients.id }).from(clients).where(eq(clients.email, email));
    const opcoId = await insertOpco(ctx, client!.id);
    const projectId = await insertProject(ctx, client!.id, opcoId);
    const userId = await insertUser(ctx, client!.id);

    // The ids a developer needs for the API are on the rows, whole, with a copy button.
    await go('Opcos & projects', 'Opcos & projects');
    await page.getByRole('button', { name: `Copy the project id ${projectId}` }).waitFor();
    await go('Customers', 'Customers');
    await page.getByRole('button', { name: `Copy the payer id ${userId}` }).waitFor();

    // Create a payment link, pay it in a second tab, watch it succeed here without a reload.
    await go('Payments', 'Payments');
    await page.getByRole('link', { name: 'Create payment link' }).click();
    await page.getByLabel('Amount').fill('42.50');
    await page.getByLabel('Description (optional)').fill('Order 1001');
    await page.getByRole('button', { name: 'Create link' }).click();
    const checkoutUrl = (await page.getByTestId('checkout-url').textContent())!;
    expect(checkoutUrl).toContain(`${base}/checkout/`);
    await expectAccessible(page, 'create payment link');
    await page.getByRole('link', { name: 'Open the payment' }).click();
    await page.getByTestId('payment-status').filter({ hasText: 'pending' }).waitFor();

    const payer = await context.newPage();
    await payer.goto(checkoutUrl);
    await payer.getByLabel('Northwind Bank').check();
    await payer.getByRole('button', { name: /Continue to bank/ }).click();
    await payer.waitForURL(/\/sandbox-bank\/authorize\//);
    await payer.getByRole('button', { name: 'Approve payment' }).click();
    await payer.getByRole('heading', { level: 1, name: 'Payment complete' }).waitFor();
    await payer.getByRole('link', { name: /^Return to / }).click();
    await payer.waitForURL(/\/shop\/return/);
    await payer.close();

    const navigations: string[] = [];
    page.on('framenavigated', (f) => navigations.push(f.url()));
    await page.getByTestId('payment-status').filter({ hasText: 'success' }).waitFor({ timeout: 20_000 });
    expect(navigations).toEqual([]);
    await page.getByRole('listitem').filter({ hasText: 'success' }).first().waitFor();
    // A paid payment: no checkout to open; its project and payer named, ids copyable.
    await page.getByText('Closed: the payment is final').waitFor();
    expect(await page.getByRole('link', { name: 'Open checkout' }).count()).toBe(0);
    await page.getByRole('button', { name: `Copy the project id ${projectId}` }).waitFor();
    await page.getByRole('button', { name: `Copy the payer id ${userId}` }).waitFor();
    await page
      .getByText(/Main shop/)
      .first()
      .waitFor();
    await expectAccessible(page, 'payment detail');
    await screenshots(page, 'payment-detail');
    await go('Payments', 'Payments');
    await page.getByRole('link', { name: 'Order 1001' }).waitFor();
    await page.getByLabel('Status').selectOption('success');
    await page.waitForURL(/status=success/);
    await page.getByRole('link', { name: 'Order 1001' }).waitFor();
    await expectAccessible(page, 'payments');
    await screenshots(page, 'payments');
    await go('Overview', 'Overview');
    await page.getByTestId('count-success').filter({ hasText: '1' }).waitFor();
    await screenshots(page, 'overview');

    // An API credential: the secret is shown once, and never again (not even after a reload).
    await go('Developers', 'Developers');
    // Preselected: a role that can create payment links, with the roles explained beside it.
    expect(await page.getByLabel('Role').inputValue()).toBe('operations');
    await page.getByTestId('credential-roles').filter({ hasText: 'not create payments' }).waitFor();
    await page.getByLabel('Label').fill('CI server');
    await page.getByRole('button', { name: 'Create credential' }).click();
    const apiSecret = (await page.getByTestId('secret-value').textContent())!;
    expect(apiSecret.length).toBeGreaterThan(20);
    await expectAccessible(page, 'developers');
    await screenshots(page, 'developers');
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    expect(await page.content()).not.toContain(apiSecret);
    await page.reload();
    await page.getByRole('cell', { name: 'CI server', exact: true }).waitFor();
    expect(await page.content()).not.toContain(apiSecret);

    // Webhooks: a test event to a failing endpoint, then a retry once it answers.
    const worker = createWebhookDeliveryWorker(ctx.deps);
    try {
      await go('Webhooks', 'Webhooks');
      await page.getByLabel('Webhook URL').fill(`${hooks.url}/hooks`);
      await page.getByRole('button', { name: 'Save endpoint' }).click();
      await page.getByTestId('secret-value').waitFor();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('Test event sent.').waitFor();
      await worker.runOnce();
      await page.getByLabel('Delivery status').selectOption('retrying');
      await page.waitForURL(/delivery_status=retrying/);
      const failed = page.getByTestId('delivery-row').filter({ hasText: 'webhook.test' });
      await failed.filter({ hasText: 'HTTP 500' }).waitFor({ timeout: 10_000 });
      await expectAccessible(page, 'webhooks');
      await screenshots(page, 'webhooks');
      hooksFail = false;
      // The worker runs only once the retry is recorded (the click returns before its request ends).
      await Promise.all([
        page.waitForResponse(
          (r) =>
            r.request().method() === 'POST' &&
            /\/webhooks\/deliveries\/[^/]+\/retry$/.test(new URL(r.url()).pathname),
        ),
        failed.getByRole('button', { name: 'Retry webhook.test delivery' }).click(),
      ]);
      await worker.runOnce();
      await page.getByLabel('Delivery status').selectOption('succeeded');
      await page
        .getByTestId('delivery-row')
        .filter({ hasText: 'webhook.test' })
        .first()
        .waitFor({ timeout: 10_000 });
    } finally {
      await worker.stop();
    }

    // Team: add a developer behind the ADD_MEMBER challenge (authenticator code).
    const devEmail = uniqueEmail('dev');
    await go('Team', 'Team');
    await page.getByLabel('Email').fill(devEmail);
    await page.getByLabel('Full name').fill('Dee Developer');
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Add member' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Verify with').selectOption('totp');
    await dialog.getByRole('button', { name: 'Continue' }).click();
    ctx.clock.advanceSeconds(60);
    await dialog.getByLabel('Code from your authenticator app').fill(currentTotp(secret, ctx.clock.now()));
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`${devEmail} was added`).waitFor();
    await page.getByRole('cell', { name: devEmail, exact: true }).waitFor();
    await expectAccessible(page, 'team');
    await screenshots(page, 'team');
    expect(cspErrors).toEqual([]);
    await context.close();

    // The developer signs in: no payment-link button, no owner-only pages.
    const mail = await smtp.waitFor(devEmail, /Temporary password/);
    const temp = /Temporary password: (\S+)/.exec(mail.text)![1]!;
    const dev = await browser.newPage({ viewport: { width: 390, height: 800 } });
    await dev.goto(`${base}/dashboard/payments`);
    await dev.getByLabel('Email').fill(devEmail);
    await dev.getByLabel('Password').fill(temp);
    await dev.getByRole('button', { name: 'Sign in' }).click();
    await dev.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await dev.getByRole('link', { name: 'Order 1001' }).waitFor();
    expect(await dev.getByRole('link', { name: 'Create payment link' }).count()).toBe(0);
    await dev.getByRole('button', { name: 'Menu' }).click();
    const nav = dev.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Webhooks' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Team' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Developers' }).count()).toBe(0);
    await dev.screenshot({ path: 'test-results/dashboard-shots/developer-menu-390.png', fullPage: true });
    await dev.close();
  }, 420_000);
});
