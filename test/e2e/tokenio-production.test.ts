/**
 * End to end in production mode on PostgreSQL, the payment network being the Token.io stand-in
 * (SVC_ENVIRONMENT=production, SVC_BANK_PROVIDER=tokenio): a client with production access, an
 * opco submitted, approved by staff and activated by Token.io's review as a Sub-TPP, payment links
 * paid in Chromium through the stand-in's bank page (success with the merchant's signed webhooks,
 * rejected, expired), Token.io failing while the payer picks a bank (a clean 503, nothing
 * half-written, then recovery), a notification never sent (reconciliation ends the payment within
 * the bound), and a VRP mandate authorized at the bank with a run paid. One service per file.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, opcos, recurringPayments, transactions } from '../../src/db/schema/index';
import { registerSubTppJob } from '../../src/modules/opcos/opco-network.service';
import { createNetworkReconcileWorker as createTokenioWorker } from '../../src/modules/payments/network-reconcile.worker';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { runRecurringWorker } from '../../src/modules/recurring/recurring.worker';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { jobRegistry, runDueJobs } from '../../src/platform/jobs/index';
import { tokenioSettings } from '../../src/providers/bank/tokenio/config';
import { systemClock } from '../../src/shared/clock';
import type { TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { testEngine } from '../helpers/db';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook, signatureMatches } from '../helpers/webhooks';
import { companyBody, staffHeaders } from '../org/fixtures';
import { insertUser, newKey } from '../payments/fixtures';
import { startTokenioApp } from '../providers/tokenio/fixtures';
import { type RunningStandin, startTokenioStandin } from '../standins/tokenio/server';

const AFTER = 30;

describe.skipIf(!hasChromium || testEngine() !== 'postgres')(
  'production with Token.io (stand-in), end to end',
  () => {
    let standin: RunningStandin;
    let ctx: TestContext;
    let browser: Browser;
    let merchant: http.Server;
    let merchantBase: string;
    let rx: Receiver;
    let dispatcher: DeliveryDispatcher;
    let caller: TestCaller;
    let secret: string;
    let projectId: string;
    let userId: string;

    const api = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
      ctx.app.inject({
        method: method as 'GET',
        url: `/api/v1${url}`,
        headers: { ...caller.headers, ...headers },
        payload: payload as object,
      });
    const tx = async (id: string) =>
      (await ctx.db.select().from(transactions).where(eq(transactions.id, id)))[0]!;
    const worker = () => createTokenioWorker(ctx.deps)!;
    const paylink = async (amount: string) => {
      const r = await api(
        'POST',
        '/checkout/paylink',
        { amount, currency: 'GBP', project_id: projectId, user_id: userId },
        {
          'x-idempotency-key': newKey(),
        },
      );
      expect(r.statusCode).toBe(201);
      return r.json() as { transaction_id: string; checkout_url: string; ref_id: string };
    };
    /** The payer picks Modelo Bank on our checkout and lands on the stand-in bank's page. */
    async function toBank(page: Page, checkoutUrl: string) {
      await page.goto(checkoutUrl);
      await page.getByLabel('Modelo Bank').check();
      await page.getByRole('button', { name: /Continue to bank/ }).click();
      await page.waitForURL(`${standin.url}/bank/**`);
    }
    /** Back from the bank, the checkout shows the outcome; its "Return to …" button leads to the merchant. */
    async function returnToMerchant(page: Page) {
      await page.waitForURL(/\/checkout\/[^/]+$/);
      await page.getByRole('link', { name: /^Return to / }).click();
      await page.waitForURL(`${merchantBase}/**`);
      return new URL(page.url());
    }
    async function payInBrowser(checkoutUrl: string, button: string) {
      const page = await browser.newPage();
      try {
        await toBank(page, checkoutUrl);
        await page.getByRole('button', { name: button, exact: true }).click();
        return await returnToMerchant(page);
      } finally {
        await page.close();
      }
    }

    beforeAll(async () => {
      merchant = http.createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Thanks</h1>'),
      );
      await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
      merchantBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
      rx = await startReceiver();
      standin = await startTokenioStandin({ vrpSettleMs: 150 });
      ctx = await startTokenioApp(standin, {
        SVC_TOKENIO_RECONCILE_AFTER_SECONDS: String(AFTER),
        // Commercial VRP agreed with Token.io (off by default in production).
        SVC_TOKENIO_VRP_ENABLED: 'true',
        // Short cadences, so the clock never passes the callers' access tokens.
        SVC_TOKENIO_REVIEW_INTERVAL_SECONDS: '60',
        SVC_TOKENIO_CONSENT_REREAD_SECONDS: '60',
      });
      await worker().runOnce(); // registers our webhook URL with Token.io
      // The merchant's receiver listens on loopback, which production's webhook guard refuses as a target
      // (private networks): this one dispatcher runs without that guard, and on real time (a follow-up
      // delivery is due by the database's clock); everything else is production on the test clock.
      dispatcher = createDeliveryDispatcher({
        ...ctx.deps,
        clock: systemClock,
        config: { ...ctx.deps.config, environment: 'sandbox' },
      });
      caller = await createTestClient(ctx, {
        productionAccess: true,
        callbackUrl: `${merchantBase}/shop/return`,
      });
      // Recurring payments are off by default in production: staff switch them on for this client.
      await ctx.db
        .update(clients)
        .set({ features: { recurring_payments: true } })
        .where(eq(clients.id, caller.clientId));
      await setMainWebhook(ctx, caller.clientId, `${rx.url}/hooks`);
      secret = (await api('POST', '/webhooks/subscription/secret')).json().webhook_secret;
      userId = await insertUser(ctx, caller.clientId);
      browser = await launchChromium();
    }, 60_000);

    afterAll(() =>
      closeInTurn({
        browser: () => browser?.close(),
        dispatcher: () => dispatcher?.close(),
        ctx: () => ctx?.close(),
        standin: () => standin?.close(),
        rx: () => rx?.close(),
        merchant: () => new Promise((r) => merchant?.close(r)),
      }),
    );

    it('an opco becomes a Token.io Sub-TPP: submit, staff approval (registration job), Token.io review', async () => {
      const o = (
        await api('POST', '/opcos', companyBody({ name: 'Shop Opco', settlement_bic: 'BUKBGB22' }))
      ).json();
      expect((await api('POST', `/opcos/${o.opco_id}/submit`)).json().status).toBe(
        'pending_superadmin_review',
      );
      const staff = (await staffHeaders(ctx)).headers;
      const approved = await api(
        'POST',
        `/admin/opcos/${o.opco_id}/approve`,
        { reason: 'KYB checked' },
        staff,
      );
      expect(approved.json()).toMatchObject({ status: 'awaiting_approval', sub_tpp_id: null });
      await runDueJobs(ctx.deps, jobRegistry([registerSubTppJob as never]));
      const [row] = await ctx.db.select().from(opcos).where(eq(opcos.id, o.opco_id));
      standin.control.decideSubTpp(
        row!.subTppRegistrationId!,
        'ACTIVATED',
        'This sub-TPP has been activated.',
      );
      await worker().runOnce();
      const activated = (await api('GET', `/opcos/${o.opco_id}`)).json();
      expect(activated).toMatchObject({ status: 'activated', sub_tpp_id: row!.subTppRegistrationId });
      const p = await api('POST', '/projects', { project_name: 'Shop', opco_id: o.opco_id });
      projectId = p.json().project_id;
    });

    it('a payment link paid in Chromium at the bank: success, and the merchant’s signed webhooks', async () => {
      const t = await paylink('25.00');
      const back = await payInBrowser(t.checkout_url, 'Approve payment');
      expect(back.pathname).toBe('/shop/return');
      expect(back.searchParams.get('transaction_id')).toBe(t.transaction_id);
      const row = await tx(t.transaction_id);
      expect(row).toMatchObject({ status: 'success', providerStatus: 'completed' });
      expect(standin.control.store.payments.get(row.transferId!)!.initiation.onBehalfOfId).toBeTruthy();
      const hooksOf = () =>
        rx
          .on('/hooks')
          .map((r) => ({ r, body: JSON.parse(r.rawBody) }))
          .filter(
            (h) =>
              h.body.type === 'payment.status_changed' && h.body.data.transaction_id === t.transaction_id,
          );
      // Deliveries come due a moment after their event (real time): drain until both arrived.
      for (let i = 0; i < 50 && hooksOf().length < 2; i++) {
        await dispatcher.drain();
        if (hooksOf().length < 2) await new Promise((r) => setTimeout(r, 100));
      }
      const hooks = hooksOf();
      expect(
        hooks.map((h) => `${h.body.data.previous_payment_status}->${h.body.data.current_payment_status}`),
      ).toEqual(['pending->processing', 'processing->success']);
      expect(hooks.every((h) => signatureMatches(secret, h.r))).toBe(true);
      expect(hooks[1]!.body.data).toMatchObject({
        ref_id: t.ref_id,
        transfer_id: row.transferId,
        status_detail: 'completed',
      });
    });

    it('approved at the bank, confirmed a moment later: "Confirming your payment" reloads itself (no JavaScript) until complete', async () => {
      const t = await paylink('24.00');
      standin.control.store.opts.processingMs = 2500;
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      try {
        await toBank(page, t.checkout_url);
        await page.getByRole('button', { name: 'Approve payment', exact: true }).click();
        await page.getByRole('heading', { level: 1, name: 'Confirming your payment' }).waitFor();
        expect(await page.getByRole('button', { name: /Cancel/ }).count()).toBe(0);
        expect(await page.getByText('Finish approving it there').count()).toBe(0);
        if (process.env.CHECKOUT_SCREENSHOT_DIR)
          await page.screenshot({
            path: `${process.env.CHECKOUT_SCREENSHOT_DIR}/production-confirming.png`,
            fullPage: true,
          });
        await page.getByRole('heading', { level: 1, name: 'Payment complete' }).waitFor({ timeout: 15_000 });
        if (process.env.CHECKOUT_SCREENSHOT_DIR)
          await page.screenshot({
            path: `${process.env.CHECKOUT_SCREENSHOT_DIR}/production-complete.png`,
            fullPage: true,
          });
        const back = await returnToMerchant(page);
        expect(back.searchParams.get('transaction_id')).toBe(t.transaction_id);
        expect((await tx(t.transaction_id)).status).toBe('success');
      } finally {
        standin.control.store.opts.processingMs = 0;
        await context.close();
      }
    });

    it('rejected at the bank, and the bank timing out: failed and expired', async () => {
      const rejected = await paylink('26.00');
      await payInBrowser(rejected.checkout_url, 'Reject payment');
      expect(await tx(rejected.transaction_id)).toMatchObject({
        status: 'failed',
        providerStatus: 'rejected',
      });
      const expired = await paylink('27.00');
      await payInBrowser(expired.checkout_url, 'Let the bank time out');
      expect(await tx(expired.transaction_id)).toMatchObject({
        status: 'expired',
        providerStatus: 'expired',
      });
    });

    it('Token.io failing as the payer picks a bank: a clean 503 page, nothing half-written; then the payer pays', async () => {
      const t = await paylink('28.00');
      standin.control.fail('payments.initiate', { kind: 'status', status: 503 });
      const page = await browser.newPage();
      try {
        await page.goto(t.checkout_url);
        await page.getByLabel('Modelo Bank').check();
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith('/bank')),
          page.getByRole('button', { name: /Continue to bank/ }).click(),
        ]);
        expect(res.status()).toBe(503);
        await expect(page.getByText(PaymentMessages.paymentNetworkUnavailable).isVisible()).resolves.toBe(
          true,
        );
        expect(await tx(t.transaction_id)).toMatchObject({
          status: 'pending',
          transferId: null,
          reconciliationState: 'none',
        });
        await toBank(page, t.checkout_url);
        await page.getByRole('button', { name: 'Approve payment', exact: true }).click();
        await returnToMerchant(page);
      } finally {
        await page.close();
      }
      expect((await tx(t.transaction_id)).status).toBe('success');
    });

    it('a notification never sent and a payer who never returns: reconciliation ends the payment within the bound', async () => {
      const t = await paylink('29.00');
      const page = await browser.newPage();
      try {
        await toBank(page, t.checkout_url);
      } finally {
        await page.close();
      }
      await standin.control.notifier.idle();
      standin.control.notifier.dropNext(100);
      const row = await tx(t.transaction_id);
      standin.control.store.decidePayment(row.transferId!, 'approve'); // approved at the bank; no return, no notification
      await worker().runOnce();
      expect((await tx(t.transaction_id)).status).toBe('processing');
      ctx.clock.advanceSeconds(AFTER);
      await worker().runOnce();
      expect(await tx(t.transaction_id)).toMatchObject({ status: 'success', providerStatus: 'completed' });
      standin.control.reset();
    });

    it('the bank never gives a final status: expired and held for manual review (webhook to the merchant), then a late completion is raised without moving the status', async () => {
      const t = await paylink('41.00');
      const back = await payInBrowser(t.checkout_url, 'Approve, but the bank never confirms');
      expect(back.searchParams.get('transaction_id')).toBe(t.transaction_id);
      await standin.control.notifier.idle();
      expect(await tx(t.transaction_id)).toMatchObject({
        status: 'expired',
        providerStatus: 'no_final_status',
        reconciliationState: 'manual_review_required',
      });
      const held = (
        await api('GET', '/transactions?reconciliation_state=manual_review_required&page_size=200')
      ).json();
      expect(held.transactions.map((x: { transaction_id: string }) => x.transaction_id)).toContain(
        t.transaction_id,
      );
      // The bank reports late; Token.io's notification is lost: the slow reads find it.
      standin.control.notifier.dropNext(100);
      const row = await tx(t.transaction_id);
      standin.control.reportLate(row.transferId!, 'INITIATION_COMPLETED');
      ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.review.intervalSeconds + 1);
      await worker().runOnce();
      expect(await tx(t.transaction_id)).toMatchObject({
        status: 'expired',
        providerStatus: 'completed',
        reconciliationState: 'manual_review_required',
      });
      // The merchant's receiver gets both announcements, signed.
      const mine = () =>
        rx.requests.filter((r) => {
          const b = JSON.parse(r.rawBody);
          return b.type === 'payment.status_changed' && b.data.transaction_id === t.transaction_id;
        });
      // Deliveries come due a moment after their event (real time): drain until all three arrived.
      for (let i = 0; i < 50 && mine().length < 3; i++) {
        await dispatcher.drain();
        if (mine().length < 3) await new Promise((r) => setTimeout(r, 100));
      }
      expect(mine().every((r) => signatureMatches(secret, r))).toBe(true);
      const data = mine().map((r) => JSON.parse(r.rawBody).data);
      expect(
        data.map(
          (d) =>
            `${d.previous_payment_status}->${d.current_payment_status}:${d.reconciliation_state}:${d.status_detail}`,
        ),
      ).toEqual([
        'pending->processing:none:awaiting_bank_authorization',
        'processing->expired:manual_review_required:no_final_status',
        'expired->expired:manual_review_required:completed',
      ]);
      standin.control.reset();
    });

    it('a VRP mandate authorized at the bank, and a run paid under it', async () => {
      const today = ctx.clock.now().toISOString().slice(0, 10);
      const d = (
        await api(
          'POST',
          '/recurring-payments',
          {
            project_id: projectId,
            user_id: userId,
            currency: 'GBP',
            amount: '15.00',
            description: 'Membership',
            reference: 'MEM-1',
            schedule: { interval: 'month', interval_count: 1, start_date: today },
            mandate: {
              max_amount_per_payment: '50.00',
              periodic_limit: { amount: '100.00', period: 'month', alignment: 'calendar' },
            },
          },
          { 'x-idempotency-key': newKey() },
        )
      ).json();
      const page = await browser.newPage();
      try {
        await page.goto(d.authorization_url);
        await page.getByLabel('Modelo Bank').check();
        await page.getByRole('button', { name: 'Continue to bank' }).click();
        await page.waitForURL(`${standin.url}/bank/consents/**`);
        await page.getByRole('button', { name: 'Authorize consent', exact: true }).click();
        await page.waitForURL(`${merchantBase}/**`);
        expect(new URL(page.url()).searchParams.get('definition_id')).toBe(d.definition_id);
      } finally {
        await page.close();
      }
      expect((await api('GET', `/recurring-payments/${d.definition_id}`)).json()).toMatchObject({
        status: 'active',
        mandate: { status: 'authorized', bank_name: 'Modelo Bank' },
      });
      for (let i = 0; i < 20 && (await runRecurringWorker(ctx.deps)) > 0; i++);
      // The VRP payment settles at Token.io a moment later and its notification ends the run.
      let run: { status: string; transaction_id: string | null } | undefined;
      for (let i = 0; i < 50; i++) {
        const runs = (await api('GET', `/recurring-payments/${d.definition_id}/runs`)).json().runs;
        run = runs.find((r: { sequence: number }) => r.sequence === 1);
        if (run?.status === 'succeeded') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(run).toMatchObject({ status: 'succeeded' });
      const vrp = await tx(run!.transaction_id!);
      expect(standin.control.store.payments.get(vrp.transferId!)!.initiation.vrpConsentId).toBeTruthy();

      // The payer revokes the consent in the banking app; Token.io's notification is lost. The daily
      // re-read sees it before the next month's run, which then never charges.
      const [def] = await ctx.db
        .select()
        .from(recurringPayments)
        .where(eq(recurringPayments.id, d.definition_id));
      standin.control.notifier.dropNext(100);
      standin.control.setConsentStatus(def!.mandateRef!, 'REVOKED', 'Revoked by the payer at the bank');
      ctx.clock.advanceSeconds(tokenioSettings(ctx.config)!.consentRereadSeconds);
      await worker().runOnce();
      const [after] = await ctx.db
        .select()
        .from(recurringPayments)
        .where(eq(recurringPayments.id, d.definition_id));
      expect([after!.status, after!.mandateStatus]).toEqual(['revoked', 'revoked']);
      const vrpsBefore = standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT' }).length;
      ctx.clock.advanceSeconds(32 * 86400);
      for (let i = 0; i < 20 && (await runRecurringWorker(ctx.deps)) > 0; i++);
      expect(standin.control.store.listPayments({ type: 'VARIABLE_RECURRING_PAYMENT' })).toHaveLength(
        vrpsBefore,
      );
      standin.control.reset();
    });
  },
);
