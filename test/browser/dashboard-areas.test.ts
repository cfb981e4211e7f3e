/**
 * The dashboard pages of the named areas in headless Chromium against the real service: the
 * notifications inbox and the unread count in the navigation, the activity log, support tickets
 * (open, reply), billing invoices (detail, PDF download), recurring payments, payment schedules and
 * the monitoring queue (review with a note). Data is created through the API; each
 * page is checked with axe-core.
 */
import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { invoices } from '../../src/db/schema/index';
import { createTestApp, type TestContext } from '../helpers/app';
import { loginOk, registerVerified } from '../helpers/auth-flow';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { ensureDashboardBuilt, expectAccessible, screenshots } from '../helpers/dashboard';
import { freePort } from '../helpers/process';
import { type SmtpCapture, startSmtpCapture } from '../helpers/smtp';
import { staffHeaders } from '../org/fixtures';
import { insertOpco, insertProject, insertUser, newKey } from '../payments/fixtures';

describe.skipIf(!hasChromium)('dashboard: named areas', () => {
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

  const api = async (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => {
    const res = await ctx.app.inject({ method, url: `/api/v1${url}`, headers, payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  it('shows notifications, tickets, invoices, recurring, schedules, monitoring and activity; marks read; downloads a PDF; reviews', async () => {
    const owner = await registerVerified(ctx, smtp);
    const session = await loginOk(ctx, owner.email, owner.password);
    const staff = (await staffHeaders(ctx)).headers;
    for (const title of ['Maintenance on Sunday', 'New payout schedule'])
      await api('POST', '/admin/notifications', staff, {
        client_id: owner.clientId,
        title,
        body: `${title}: details inside.`,
        severity: 'info',
        category: 'system',
      });
    const ticket = await api('POST', '/tickets', session.headers, {
      subject: 'Refund stuck in processing',
      body: 'The refund for order 42 has not arrived.',
      category: 'payments',
    });
    const invoice = await api('POST', '/sandbox/billing/invoices', session.headers, {});
    const projectId = await insertProject(ctx, owner.clientId, await insertOpco(ctx, owner.clientId));
    const userId = await insertUser(ctx, owner.clientId);
    await api('PUT', '/auth/client/settings', session.headers, {
      callback_url: 'https://shop.example.com/return',
    });
    await api('PUT', '/monitoring/policy', session.headers, {
      rules: [
        {
          rule_id: 'big',
          name: 'Large transfer',
          type: 'amount_above',
          params: { amount: '1000', currency: 'EUR' },
          action: 'review',
        },
      ],
    });
    const monitored = await api('POST', '/monitoring/transactions', session.headers, {
      client_reference: 'wire-7781',
      direction: 'outbound',
      amount: '5000.00',
      currency: 'EUR',
      payment_method: 'bank_transfer',
      customer: { external_id: 'cust-1', name: 'Jane Customer', country: 'DE' },
      counterparty: {
        name: 'Bob Counterparty',
        type: 'natural',
        country: 'FR',
        account_identifier: 'FR7612345',
      },
    });
    expect(monitored.decision).toBe('IN_REVIEW');
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const withKey = { ...session.headers, 'x-idempotency-key': newKey() };
    const recurring = await api('POST', '/recurring-payments', withKey, {
      project_id: projectId,
      user_id: userId,
      currency: 'EUR',
      amount: '10.00',
      description: 'Gym membership',
      reference: 'GYM-2026',
      schedule: { interval: 'month', interval_count: 1, start_date: today },
      mandate: {
        max_amount_per_payment: '50.00',
        periodic_limit: { amount: '100.00', period: 'month', alignment: 'calendar' },
      },
    });
    await api(
      'POST',
      '/payment-schedules',
      { ...session.headers, 'x-idempotency-key': newKey() },
      {
        project_id: projectId,
        user_id: userId,
        currency: 'EUR',
        description: 'Sofa in three parts',
        plan: { total_amount: '300.00', count: 3, interval: 'month', start_date: today },
      },
    );
    // The two broadcasts, plus what the invoice notified (billing goes to the owner).
    const { unread_count: unread } = await api('GET', '/notifications/counts', session.headers);
    expect(unread).toBeGreaterThanOrEqual(2);

    const context = await browser.newContext({
      viewport: { width: 390, height: 800 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    onTestFailed(async () => {
      console.log(
        'alerts:',
        await page
          .getByRole('alert')
          .allTextContents()
          .catch(() => []),
      );
    });
    const go = async (label: string, heading: string) => {
      await page.getByRole('button', { name: 'Menu' }).click();
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: label, exact: true })
        .click();
      await heading1(page, heading);
    };

    await page.goto(`${base}/dashboard/notifications`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading1(page, 'Notifications');

    // Notifications: listed, the navigation counts them, marking one read lowers the count.
    const count = page.getByTestId('unread-count');
    await expect.poll(() => count.textContent()).toBe(`${unread} unread`);
    await page.getByRole('heading', { name: /Maintenance on Sunday/ }).waitFor();
    await expectAccessible(page, 'notifications');
    await screenshots(page, 'notifications');
    await page.getByRole('button', { name: 'Mark read: Maintenance on Sunday' }).click();
    await expect.poll(() => count.textContent()).toBe(`${unread - 1} unread`);
    await page.getByRole('button', { name: 'Mark unread: Maintenance on Sunday' }).waitFor();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await expect.poll(() => count.count()).toBe(0);
    // The read filter lives in the URL.
    await page.getByLabel('Read', { exact: true }).selectOption('false');
    await expect.poll(() => new URL(page.url()).searchParams.get('read')).toBe('false');
    await page.getByText('No notifications.').waitFor();

    // Tickets: the API-created one is listed; open another from the page and reply to it.
    await go('Support tickets', 'Support tickets');
    await page.getByRole('link', { name: /Refund stuck in processing/ }).waitFor();
    await expectAccessible(page, 'tickets');
    await page.getByRole('link', { name: 'Open a ticket' }).click();
    await heading1(page, 'Open a ticket');
    await page.getByLabel('Subject').fill('Invoice address is wrong');
    await page.getByLabel('Category').selectOption('billing');
    await page.getByLabel('Message').fill('Please change our address.');
    await expectAccessible(page, 'open a ticket');
    await page.getByRole('button', { name: 'Open ticket' }).click();
    await heading1(page, /^Ticket #\d+$/);
    await page.getByText('Please change our address.').waitFor();
    await page.getByLabel('Your reply').fill('It is 1 Main Street.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('It is 1 Main Street.').waitFor();
    await expectAccessible(page, 'ticket detail');
    await page.goto(`${base}/dashboard/tickets/${ticket.ticket_id}`);
    await page.getByText('The refund for order 42 has not arrived.').waitFor();

    // Invoices: listed, detail with lines, the PDF downloads.
    await go('Invoices', 'Invoices');
    await page.getByRole('link', { name: invoice.number }).click();
    await heading1(page, `Invoice ${invoice.number}`);
    await expectAccessible(page, 'invoice detail');
    await screenshots(page, 'invoice');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download PDF' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${invoice.number}.pdf`);
    expect(
      fs
        .readFileSync(await download.path())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    // Uncollectible (set by staff) is still payable: its payment link stays offered.
    await ctx.db
      .update(invoices)
      .set({ status: 'uncollectible', paymentUrl: `${base}/checkout/invoice-link` })
      .where(eq(invoices.id, invoice.invoice_id));
    await page.reload();
    await heading1(page, `Invoice ${invoice.number}`);
    await page.getByRole('link', { name: 'Pay this invoice' }).waitFor();
    // The API's own message for an invoice that is not there.
    await page.goto(`${base}/dashboard/invoices/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').filter({ hasText: 'Invoice not found' }).waitFor();
    await go('Invoices', 'Invoices');
    await expectAccessible(page, 'invoices');

    // Recurring payments: the list filters by status in the URL; the detail shows the mandate.
    await go('Recurring payments', 'Recurring payments');
    await page.getByLabel('Status').selectOption('pending_authorization');
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('pending_authorization');
    await expectAccessible(page, 'recurring payments');
    await page.getByRole('link', { name: 'Gym membership' }).click();
    await heading1(page, 'Recurring payment');
    await page.getByRole('link', { name: recurring.authorization_url }).waitFor();
    await page.getByText('No runs yet.').waitFor();
    await expectAccessible(page, 'recurring payment');

    // Payment schedules: the plan's three instalments.
    await go('Payment schedules', 'Payment schedules');
    await expectAccessible(page, 'payment schedules');
    await page.getByRole('link', { name: 'Sofa in three parts' }).click();
    await heading1(page, 'Payment schedule');
    await expect.poll(() => page.getByRole('cell', { name: /^#\d$/ }).count()).toBe(3);
    await expectAccessible(page, 'payment schedule');

    // Monitoring: the queue by decision and q (in the URL), the rule that hit, a review with a note.
    await go('Monitoring', 'Monitoring');
    await page.getByLabel('Decision').selectOption('IN_REVIEW');
    await page.getByLabel('Search').fill('wire-7781');
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('wire-7781');
    expect(new URL(page.url()).searchParams.get('decision')).toBe('IN_REVIEW');
    await expectAccessible(page, 'monitoring');
    await page.getByRole('link', { name: 'wire-7781' }).click();
    await heading1(page, 'Monitored wire-7781');
    await page.getByRole('cell', { name: 'Large transfer' }).waitFor();
    await expectAccessible(page, 'monitored transaction');
    await screenshots(page, 'monitored');
    await page.getByLabel('New decision').selectOption('APPROVED');
    await page.getByLabel('Note').fill('Invoice from a known supplier checked.');
    await page.getByRole('button', { name: 'Submit review' }).click();
    await page.getByRole('listitem').filter({ hasText: 'Invoice from a known supplier checked.' }).waitFor();
    await expect(page.getByRole('button', { name: 'Submit review' }).count()).resolves.toBe(0);

    // Activity log: the ticket creation is there, filterable by action prefix (kept in the URL).
    await go('Activity log', 'Activity log');
    await page.getByLabel('Action').fill('ticket.');
    await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('ticket.');
    await page.getByRole('link', { name: 'ticket.created' }).first().click();
    await heading1(page, 'Activity entry');
    await page.getByText(owner.email).first().waitFor();
    await expectAccessible(page, 'activity entry');
    await page.goBack();
    await heading1(page, 'Activity log');
    await expectAccessible(page, 'activity log');
    await context.close();
  }, 120_000);
});

const heading1 = (page: Page, name: string | RegExp) =>
  page.getByRole('heading', { level: 1, name }).waitFor();
