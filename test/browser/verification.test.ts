/**
 * A real headless Chromium completes the hosted verification page: the test creates a link over
 * the API, the "applicant" picks the outcome and checks, is sent to the client's redirect_url,
 * and the record is read back over the API; the kyc.status_changed webhook arrives at a real
 * local receiver through the outbox. Skips (with a message) only when no Chromium is installed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { createTestApp, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook, signatureMatches } from '../helpers/webhooks';
import { api, createKycWorld, createLink, type KycWorld, setGroups } from '../kyc/fixtures';

const SHOTS = process.env.CHECKOUT_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('hosted verification page in Chromium', () => {
  let ctx: TestContext;
  let w: KycWorld;
  let browser: Browser;
  let merchant: http.Server;
  let merchantBase: string;
  let rx: Receiver;
  let dispatcher: DeliveryDispatcher;
  let secret: string;

  beforeAll(async () => {
    merchant = http.createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Merchant</title><h1>Done</h1>');
    });
    await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', () => r()));
    merchantBase = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
    rx = await startReceiver();
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    dispatcher = createDeliveryDispatcher(ctx.deps);
    w = await createKycWorld(ctx);
    await setMainWebhook(ctx, w.caller.clientId, `${rx.url}/hooks`);
    secret = (await api(ctx, 'POST', '/webhooks/subscription/secret', w.caller.headers)).json()
      .webhook_secret;
    await setGroups(ctx, w.caller.clientId, ['documents', 'aml_hits']);
    browser = await launchChromium();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      dispatcher: () => dispatcher?.close(),
      ctx: () => ctx?.close(),
      rx: () => rx?.close(),
      merchant: () => new Promise((r) => merchant?.close(r)),
    }),
  );

  it('completes a verification and the client sees the record and the webhook', async () => {
    const link = await createLink(ctx, w, { level: 'enhanced', redirect_url: `${merchantBase}/kyc/return` });
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    try {
      await page.goto(link.verification_url);
      await expect(page.getByRole('heading', { name: 'Complete verification' }).isVisible()).resolves.toBe(
        true,
      );
      expect(await page.textContent('.amount')).toBe('Jane Roe');
      // the level's checks are pre-selected; the tester changes some
      expect(await page.getByLabel('NFC chip read').isChecked()).toBe(true);
      await page.getByLabel('Approved').check();
      await page.getByLabel('NFC chip read').uncheck();
      await page.getByLabel('AML hits').fill('2');
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/verification.png`, fullPage: true });
      await page.getByRole('button', { name: 'Submit verification' }).click();
      await page.waitForURL(`${merchantBase}/**`);
      expect(new URL(page.url()).searchParams.get('verification_id')).toBe(link.verification_id);

      const rec = (await api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers)).json();
      expect(rec).toMatchObject({
        verification_id: link.verification_id,
        status: 'approved',
        data_trusted: true,
        liveness_status: 'passed',
        face_match_status: 'passed',
        nfc_status: null,
        poa_status: 'approved',
        aml_total_hits: 2,
      });
      expect(rec.aml_hits).toHaveLength(2);
      expect(rec.document_number).toBeNull();
      const doc = await api(ctx, 'GET', `/kyc/detail/${w.userId}/documents/selfie`, w.caller.headers);
      expect(doc.statusCode).toBe(200);
      expect(doc.headers['content-type']).toBe('image/png');

      // the link is single use
      await page.goto(link.verification_url);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
        'This verification link was already used',
      );

      await dispatcher.drain();
      const hooks = rx.on('/hooks').map((r) => ({ r, body: JSON.parse(r.rawBody) }));
      const approved = hooks.find((h) => h.body.data.current_kyc_status === 'approved');
      expect(approved).toBeDefined();
      expect(signatureMatches(secret, approved!.r)).toBe(true);
      expect(approved!.body).toMatchObject({
        type: 'kyc.status_changed',
        version: 'v1',
        data: {
          user_id: w.userId,
          email: w.email,
          previous_kyc_status: 'pending',
          current_kyc_status: 'approved',
          current_verification_source: 'service',
          source: 'provider_webhook',
        },
      });
    } finally {
      await page.close();
    }
  });

  it('declined without a redirect shows the result page (mobile viewport)', async () => {
    const link = await createLink(ctx, w, { level: 'basic' });
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    try {
      await page.goto(link.verification_url);
      await page.getByLabel('Declined').check();
      await page.getByRole('button', { name: 'Submit verification' }).click();
      await expect(page.getByRole('heading', { name: 'Verification declined' }).isVisible()).resolves.toBe(
        true,
      );
      expect((await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json().kyc_status).toBe(
        'rejected',
      );
    } finally {
      await page.close();
    }
  });
});
