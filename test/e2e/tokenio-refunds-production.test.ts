/**
 * Refunds end to end in production mode on PostgreSQL, the payment network being the Token.io
 * stand-in (SVC_ENVIRONMENT=production, SVC_BANK_PROVIDER=tokenio, SVC_TOKENIO_RETURN_REFUND_ACCOUNT
 * on): an opco activated as a Sub-TPP, a payment link paid in Chromium at Modelo Bank (a bank that
 * shares the payer's account), then through the public API a partial refund settled by Token.io's
 * REFUND_STATUS_CHANGED notification, the rest settled by the reconciliation sweep (the notification
 * lost), the payment's sums, allowed_actions and timeline, the merchant's signed refund webhooks,
 * and a refund the bank rejects (failed with the reason, the payment untouched). One service per file.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opcos, refunds, transactions } from '../../src/db/schema/index';
import { registerSubTppJob } from '../../src/modules/opcos/opco-network.service';
import { createNetworkReconcileWorker as createTokenioWorker } from '../../src/modules/payments/network-reconcile.worker';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { jobRegistry, runDueJobs } from '../../src/platform/jobs/index';
import { systemClock } from '../../src/shared/clock';
import type { TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { testEngine } from '../helpers/db';
import { runJobs } from '../helpers/jobs';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook, signatureMatches } from '../helpers/webhooks';
import { companyBody, staffHeaders } from '../org/fixtures';
import { insertUser, newKey } from '../payments/fixtures';
import { startTokenioApp } from '../providers/tokenio/fixtures';
import { runWorker } from '../refunds/fixtures';
import { type RunningStandin, startTokenioStandin } from '../standins/tokenio/server';

describe.skipIf(!hasChromium || testEngine() !== 'postgres')(
  'refunds in production with Token.io (stand-in), end to end',
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
    const refund = (transactionId: string, body: Record<string, unknown> = {}) =>
      api('POST', `/transactions/${transactionId}/refunds`, body, { 'x-idempotency-key': newKey() });
    const getRefund = async (id: string) => (await api('GET', `/refunds/${id}`)).json();
    const getPayment = async (id: string) => (await api('GET', `/transactions/${id}`)).json();
    const networkIdOf = async (refundId: string) =>
      (await ctx.db.select().from(refunds).where(eq(refunds.id, refundId)))[0]!.networkRefundId!;
    const worker = () => createTokenioWorker(ctx.deps)!;
    /** Token.io's notifications reach our hints route; the refund reads they enqueue run. */
    const settleHints = async () => {
      await standin.control.notifier.idle();
      await runJobs(ctx);
    };

    /** A payment link paid in Chromium at Modelo Bank (it shares the payer's account for refunds). */
    async function paidAtModelo(amount: string) {
      const r = await api(
        'POST',
        '/checkout/paylink',
        { amount, currency: 'GBP', project_id: projectId, user_id: userId },
        { 'x-idempotency-key': newKey() },
      );
      expect(r.statusCode, r.body).toBe(201);
      const t = r.json() as { transaction_id: string; checkout_url: string };
      const page = await browser.newPage();
      try {
        await page.goto(t.checkout_url);
        await page.getByLabel('Modelo Bank').check();
        await page.getByRole('button', { name: /Continue to bank/ }).click();
        await page.waitForURL(`${standin.url}/bank/**`);
        await page.getByRole('button', { name: 'Approve payment', exact: true }).click();
        await page.waitForURL(/\/checkout\/[^/]+$/); // back from the bank: the checkout shows the outcome
      } finally {
        await page.close();
      }
      await settleHints();
      const [row] = await ctx.db.select().from(transactions).where(eq(transactions.id, t.transaction_id));
      expect(row).toMatchObject({ status: 'success' });
      expect(row!.refundAccountEnc).toMatch(/^v1\./);
      return t.transaction_id;
    }

    beforeAll(async () => {
      merchant = http.createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Thanks</h1>'),
      );
      await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
      merchantBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
      rx = await startReceiver();
      // Refunds settle only when the test says so (setRefundStatus), except the .52 case below.
      standin = await startTokenioStandin({ refundSettleMs: 3_600_000 });
      ctx = await startTokenioApp(standin, {
        // The refund-account permission granted by Token.io, and the Refunds product.
        SVC_TOKENIO_RETURN_REFUND_ACCOUNT: 'true',
        // Required with the refund account in production: the checkout links the merchant's notice.
        SVC_PRIVACY_NOTICE_URL: 'https://merchant.example.com/privacy',
        SVC_TOKENIO_REFUNDS_ENABLED: 'true',
        // A short sweep, so the clock never passes the caller's access token.
        SVC_REFUND_RECONCILE_SECONDS: '60',
        SVC_TOKENIO_REVIEW_INTERVAL_SECONDS: '60',
        SVC_TOKENIO_CONSENT_REREAD_SECONDS: '60',
      });
      await worker().runOnce(); // registers our webhook URL with Token.io, REFUND_STATUS_CHANGED included
      expect(standin.control.notifier.config?.type).toContain('REFUND_STATUS_CHANGED');
      // The merchant's receiver listens on loopback, which production's webhook guard refuses: this
      // one dispatcher runs without that guard, on real time (tokenio-production.test.ts does the same).
      dispatcher = createDeliveryDispatcher({
        ...ctx.deps,
        clock: systemClock,
        config: { ...ctx.deps.config, environment: 'sandbox' },
      });
      caller = await createTestClient(ctx, {
        productionAccess: true,
        callbackUrl: `${merchantBase}/shop/return`,
      });
      await setMainWebhook(ctx, caller.clientId, `${rx.url}/hooks`);
      secret = (await api('POST', '/webhooks/subscription/secret')).json().webhook_secret;
      userId = await insertUser(ctx, caller.clientId);
      browser = await launchChromium();

      // An opco activated as a Sub-TPP (submit, staff approval, Token.io's review) and its project.
      const o = (
        await api('POST', '/opcos', companyBody({ name: 'Refund Opco', settlement_bic: 'BUKBGB22' }))
      ).json();
      await api('POST', `/opcos/${o.opco_id}/submit`);
      const staff = (await staffHeaders(ctx)).headers;
      await api('POST', `/admin/opcos/${o.opco_id}/approve`, { reason: 'KYB checked' }, staff);
      await runDueJobs(ctx.deps, jobRegistry([registerSubTppJob as never]));
      const [row] = await ctx.db.select().from(opcos).where(eq(opcos.id, o.opco_id));
      standin.control.decideSubTpp(row!.subTppRegistrationId!, 'ACTIVATED', 'Activated.');
      await worker().runOnce();
      expect((await api('GET', `/opcos/${o.opco_id}`)).json().status).toBe('activated');
      projectId = (await api('POST', '/projects', { project_name: 'Shop', opco_id: o.opco_id })).json()
        .project_id;
    }, 90_000);

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

    it('a partial refund (notification), then the rest (reconciliation sweep); sums, timeline and signed webhooks', async () => {
      const id = await paidAtModelo('30.00');
      expect((await getPayment(id)).allowed_actions).toContain('refund');

      // Partial: Token.io takes it (processing); its REFUND_STATUS_CHANGED says completed.
      const first = await refund(id, { amount: '10.00', reason: 'Returned item' });
      expect(first.statusCode, first.body).toBe(201);
      const a = first.json();
      expect(a).toMatchObject({ amount: '10.00', currency: 'GBP', status: 'processing' });
      expect((await getPayment(id)).refundable_amount).toBe('20.00');
      await settleHints();
      expect((await getRefund(a.refund_id)).status).toBe('processing');
      const networkA = await networkIdOf(a.refund_id);
      expect(standin.control.store.refunds.get(networkA)!.initiation.onBehalfOfId).toBeTruthy();
      standin.control.setRefundStatus(networkA, 'INITIATION_COMPLETED', 'The refund is completed');
      await settleHints();
      expect(await getRefund(a.refund_id)).toMatchObject({ status: 'succeeded', failure_reason: null });
      expect(await getPayment(id)).toMatchObject({
        status: 'success',
        refunded_amount: '10.00',
        refundable_amount: '20.00',
      });

      // The rest (no amount): Token.io's notification is lost, the sweep reads it.
      const second = await refund(id);
      expect(second.statusCode, second.body).toBe(201);
      const b = second.json();
      expect(b).toMatchObject({ amount: '20.00', status: 'processing' });
      await settleHints();
      standin.control.notifier.dropNext(100);
      standin.control.setRefundStatus(await networkIdOf(b.refund_id), 'INITIATION_COMPLETED');
      await standin.control.notifier.idle();
      await runJobs(ctx);
      expect((await getRefund(b.refund_id)).status).toBe('processing');
      ctx.clock.advanceSeconds(ctx.config.refundReconcileSeconds + 1);
      await runWorker(ctx, 'refund-reconciliation');
      standin.control.reset();
      expect((await getRefund(b.refund_id)).status).toBe('succeeded');
      const paid = await getPayment(id);
      expect(paid).toMatchObject({ status: 'success', refunded_amount: '30.00', refundable_amount: '0.00' });
      expect(paid.allowed_actions).not.toContain('refund');
      expect([409, 422]).toContain((await refund(id, { amount: '1.00' })).statusCode);

      // The payment's timeline: `refunded` detail entries, no coarse change.
      const timeline = (await api('GET', `/transactions/${id}/status-events`)).json().status_events as {
        kind: string;
        provider_status: string;
        previous_status: string;
        status: string;
      }[];
      const refunded = timeline.filter((e) => e.provider_status === 'refunded');
      expect(refunded).toHaveLength(2);
      expect(refunded.every((e) => e.kind === 'detail' && e.previous_status === 'success')).toBe(true);
      expect(refunded.every((e) => e.status === 'success')).toBe(true);

      // The merchant's receiver gets the refund events, signed.
      const mine = () =>
        rx
          .on('/hooks')
          .map((r) => ({ r, body: JSON.parse(r.rawBody) }))
          .filter((h) => h.body.type.startsWith('refund.') && h.body.data.transaction_id === id);
      for (let i = 0; i < 50 && mine().length < 6; i++) {
        await dispatcher.drain();
        if (mine().length < 6) await new Promise((r) => setTimeout(r, 100));
      }
      expect(mine().every((h) => signatureMatches(secret, h.r))).toBe(true);
      const seen = (refundId: string) =>
        mine()
          .filter((h) => h.body.data.refund_id === refundId)
          .map((h) => `${h.body.type}:${h.body.data.current_status}`)
          .sort();
      const expected = [
        'refund.created:pending',
        'refund.status_changed:processing',
        'refund.status_changed:succeeded',
      ];
      expect(seen(a.refund_id)).toEqual(expected);
      expect(seen(b.refund_id)).toEqual(expected);
      // No payment.status_changed for the refunds.
      const paymentHooks = rx
        .on('/hooks')
        .map((r) => JSON.parse(r.rawBody))
        .filter((h) => h.type === 'payment.status_changed' && h.data.transaction_id === id);
      expect(paymentHooks.every((h) => h.data.status_detail !== 'refunded')).toBe(true);
    });

    it('a refund the bank rejects (.52): failed with the reason, the payment untouched', async () => {
      const id = await paidAtModelo('12.00');
      standin.control.store.opts.refundSettleMs = 0;
      try {
        const res = await refund(id, { amount: '5.52' });
        expect(res.statusCode, res.body).toBe(201);
        await settleHints();
        const r = await getRefund(res.json().refund_id);
        expect(r).toMatchObject({ status: 'failed', reconciliation_state: 'none' });
        expect(r.failure_reason).toMatch(/reject/i);
        expect(standin.control.store.refunds.get(await networkIdOf(r.refund_id))!.status).toBe(
          'INITIATION_REJECTED',
        );
      } finally {
        standin.control.store.opts.refundSettleMs = 3_600_000;
      }
      const p = await getPayment(id);
      expect(p).toMatchObject({ status: 'success', refunded_amount: '0.00', refundable_amount: '12.00' });
      expect(p.allowed_actions).toContain('refund');
    });
  },
);
