/**
 * Every kind of notification links to a dashboard page that renders its item: one item of each kind
 * is created through the API, a notification is written for it the way the services write theirs
 * (notify with the item), and Chromium follows each "Open …" link of the inbox to a page showing the
 * item, with no error. The notification email's "Open:" link leads to the same page. One service,
 * one browser context; the list of kinds comes from src/modules/notifications/links.service.ts, so a new kind
 * without a case here fails.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { DASHBOARD_PATHS, type NotificationItemType } from '../../src/modules/notifications/links.service';
import { notificationEmailJob } from '../../src/modules/notifications/notification-email.service';
import { notify } from '../../src/modules/notifications/notify.service';
import { makePdf } from '../contracts/fixtures';
import { loginOk, registerVerified } from '../helpers/auth-flow';
import { hasChromium } from '../helpers/browser';
import { type DashboardService, startDashboardService } from '../helpers/dashboard';
import { runJobs } from '../helpers/jobs';
import { insertOpco, insertProject, insertUser, newKey, setClient } from '../payments/fixtures';
import { transferBody, evm as trEvm } from '../travel-rule/fixtures';

describe.skipIf(!hasChromium)('notification links', () => {
  let s: DashboardService;
  beforeAll(async () => {
    s = await startDashboardService();
  }, 180_000);
  afterAll(() => s?.close());

  it('follows the link of every kind of notification, from the inbox and from the email, to a rendered page', async () => {
    const { ctx, smtp, browser, base } = s;
    const owner = await registerVerified(ctx, smtp);
    const session = await loginOk(ctx, owner.email, owner.password);
    const api = async (
      method: string,
      url: string,
      payload?: object,
      headers: Record<string, string> = {},
    ) => {
      const res = await ctx.app.inject({
        method: method as 'POST',
        url: `/api/v1${url}`,
        headers: { ...session.headers, ...headers },
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res.json();
    };
    const idem = () => ({ 'x-idempotency-key': newKey() });
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const opcoId = await insertOpco(ctx, owner.clientId);
    const projectId = await insertProject(ctx, owner.clientId, opcoId);
    const userId = await insertUser(ctx, owner.clientId);
    await setClient(ctx, owner.clientId, { callbackUrl: 'https://shop.example.com/return' });
    await api('PUT', '/auth/client/settings', {
      webhook_url: 'http://127.0.0.1:9/hook',
      webhook_enabled: true,
    });
    const test = await api('POST', '/webhooks/subscription/test');
    const delivery = (await api('GET', `/webhooks/deliveries?event_id=${test.event_id}`)).deliveries[0];
    const signature = {
      field_id: 's',
      role: 'buyer',
      type: 'signature',
      page: 1,
      x: 0.1,
      y: 0.8,
      width: 0.3,
      height: 0.05,
    };
    const contract = await api('POST', '/contracts/send', {
      document: {
        file_name: 'order.pdf',
        content_base64: await makePdf(1, 'Order form'),
        roles: [{ role: 'buyer', kind: 'signer' }],
        fields: [signature],
      },
      title: 'Order form 7',
      participants: [{ role: 'buyer', name: 'Bea Buyer', email: 'bea@example.com' }],
    });
    await api('PUT', '/monitoring/policy', {
      rules: [
        {
          rule_id: 'big',
          name: 'Large',
          type: 'amount_above',
          params: { amount: '1000', currency: 'EUR' },
          action: 'review',
        },
      ],
    });
    const monitored = await api('POST', '/monitoring/transactions', {
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
    const wallet = await api('POST', '/screening/wallet', {
      chain: 'ethereum',
      address: `0x${'4'.repeat(36)}1234`,
    });
    await api('PUT', '/travel-rule/settings', { originator_vasp: { name: 'Acme VASP', country: 'DE' } });
    const transfer = await api(
      'POST',
      '/travel-rule/transfers',
      transferBody(trEvm('1234'), { client_reference: 'tr-link-1' }),
    );
    const bulk = await api(
      'POST',
      '/checkout/paylink/bulk',
      { preview: true, rows: [{ amount: '5.00', currency: 'EUR', project_id: projectId, user_id: userId }] },
      idem(),
    );
    const invoice = await api('POST', '/sandbox/billing/invoices', {});
    const recurring = await api(
      'POST',
      '/recurring-payments',
      {
        project_id: projectId,
        user_id: userId,
        currency: 'EUR',
        amount: '10.00',
        description: 'Gym membership 7',
        schedule: { interval: 'month', interval_count: 1, start_date: today },
        mandate: {
          max_amount_per_payment: '50.00',
          periodic_limit: { amount: '100.00', period: 'month', alignment: 'calendar' },
        },
      },
      idem(),
    );
    const schedule = await api(
      'POST',
      '/payment-schedules',
      {
        project_id: projectId,
        user_id: userId,
        currency: 'EUR',
        description: 'Sofa in three parts 7',
        plan: { total_amount: '300.00', count: 3, interval: 'month', start_date: today },
      },
      idem(),
    );
    const ticket = await api('POST', '/tickets', {
      subject: 'Refund stuck 7',
      body: 'Order 42.',
      category: 'payments',
    });
    const credential = await api('POST', '/auth/api-credentials', {
      label: 'Checkout backend 7',
      role: 'operations',
    });
    const me = await api('GET', '/auth/me');

    // Each kind: its item, and what its page shows once the item is rendered.
    const cases: Record<NotificationItemType, { id: string; shows: string | RegExp }> = {
      api_credential: { id: credential.credential_id, shows: 'Checkout backend 7' },
      team_member: { id: me.account.account_id, shows: owner.email },
      client: { id: owner.clientId, shows: 'Company MFA defaults' },
      opco: { id: opcoId, shows: 'Opco Acme Payments' },
      travel_rule_transfer: { id: transfer.transfer_id, shows: 'Transfer tr-link-1' },
      wallet: { id: wallet.wallet_id, shows: `0x${'4'.repeat(36)}1234` },
      bulk_job: { id: bulk.bulk_id, shows: 'Check the upload' },
      invoice: { id: invoice.invoice_id, shows: invoice.number ?? /Invoice/ },
      recurring_payment: { id: recurring.definition_id, shows: 'Gym membership 7' },
      payment_schedule: { id: schedule.schedule_id, shows: 'Sofa in three parts 7' },
      ticket: { id: ticket.ticket_id, shows: 'Refund stuck 7' },
      contract_request: { id: contract.contract_request_id, shows: 'Order form 7' },
      monitored_transaction: { id: monitored.monitored_transaction_id, shows: 'Monitored wire-7781' },
      webhook_delivery: { id: delivery.delivery_id, shows: delivery.url },
    };
    const kinds = Object.keys(DASHBOARD_PATHS) as NotificationItemType[];
    for (const kind of kinds) {
      expect(cases[kind]?.id, kind).toMatch(/^[0-9a-f-]{36}$/);
      await notify(ctx.db, {
        clientId: owner.clientId,
        category: 'system',
        severity: 'warning',
        title: `About ${kind}`,
        body: `A ${kind} needs a look.`,
        item: { type: kind, id: cases[kind].id },
        audience: { roles: ['owner'] },
        at: ctx.clock.now(),
      });
    }
    const inbox = await api('GET', '/notifications?page_size=100');
    for (const kind of kinds) {
      const n = inbox.notifications.find((x: { title: string }) => x.title === `About ${kind}`);
      expect(n.link).toEqual({
        resource_type: kind,
        resource_id: cases[kind].id,
        path: DASHBOARD_PATHS[kind](cases[kind].id),
      });
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    onTestFailed(async () => {
      console.log(
        'url:',
        page.url(),
        'problems:',
        problems,
        'alerts:',
        await page
          .getByRole('alert')
          .allTextContents()
          .catch(() => []),
      );
    });
    const inboxUrl = `${base}/dashboard/notifications?page_size=100`;
    await page.goto(inboxUrl);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Notifications' }).waitFor();

    const rendered = async (kind: NotificationItemType) => {
      await expect
        .poll(() => new URL(page.url()).pathname, { message: kind })
        .toBe(new URL(DASHBOARD_PATHS[kind](cases[kind].id), base).pathname);
      await page.getByText(cases[kind].shows).first().waitFor();
      expect(await page.getByText('Page not found.').count(), kind).toBe(0);
      expect(await page.getByRole('alert').allTextContents(), kind).toEqual([]);
    };
    for (const kind of kinds) {
      if (!page.url().startsWith(inboxUrl)) await page.goBack(); // client-side: no reload
      await page.getByRole('link', { name: new RegExp(`^Open [a-zA-Z ]+: About ${kind}$`) }).click();
      await rendered(kind);
    }
    // Opening marks read: the inbox now has none of these unread.
    expect((await api('GET', '/notifications/counts')).unread_count).toBe(
      inbox.notifications.filter((x: { read_at: string | null }) => !x.read_at).length - kinds.length,
    );

    // The email's "Open:" line, opened in the browser.
    expect(await runJobs(ctx, notificationEmailJob)).toBeGreaterThanOrEqual(kinds.length);
    const mail = await smtp.waitFor(owner.email, /A opco needs a look/);
    const open = /Open: (\S+)/.exec(mail.text)?.[1];
    expect(open).toBe(`${base}/dashboard/opcos/${opcoId}`);
    await page.goto(open!);
    await rendered('opco');
    expect(problems).toEqual([]);
    await context.close();
  });
});
