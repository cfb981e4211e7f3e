/**
 * The hosted verification page of a vendor-hosted flow (Sumsub, production mode, against the
 * stand-in) in a real headless Chromium: the person reads the disclosure and must tick the box
 * before anything about them reaches Sumsub; the click hands over to the WebSDK. Opening the page
 * alone calls nobody. Skips (with a message) only when no Chromium is installed.
 */
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { createKycWorld, createLink, type KycWorld } from '../kyc/fixtures';
import { STANDIN_PRODUCTION_TOKEN, sumsubEnv } from '../kyc/sumsub-fixtures';
import { type SumsubStandin, startSumsubStandin } from '../standins/sumsub/server';

const SHOTS = process.env.CHECKOUT_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('hosted verification consent step in Chromium (Sumsub)', () => {
  let ctx: TestContext;
  let standin: SumsubStandin;
  let browser: Browser;
  let page: Page;
  let w: KycWorld;

  beforeAll(async () => {
    standin = await startSumsubStandin({ webhookUrl: null, appToken: STANDIN_PRODUCTION_TOKEN });
    const port = await freePort();
    ctx = await createTestApp({
      env: {
        ...PRODUCTION_ENV,
        ...sumsubEnv(standin.url),
        SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
        SVC_SUMSUB_PRIVACY_URL: 'https://merchant.example/privacy',
      },
    });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    standin.control.webhooks.settings.url = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}/api/v1/providers/verification/notifications`;
    w = await createKycWorld(ctx, { productionAccess: true });
    browser = await launchChromium();
    page = await browser.newPage();
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      standin: () => standin?.close(),
    }),
  );

  it('the disclosure comes first; Continue needs the box ticked; then the WebSDK has the data', async () => {
    const link = await createLink(ctx, w, { level: 'basic' });
    const a = standin.control.byExternalUserId(`svc-kyc-${w.userId}`)!;
    const before = standin.control.requests.length;
    await page.goto(link.verification_url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Before you start');
    await expect(page.locator('#consent-text').textContent()).resolves.toMatch(
      /uses Sumsub, an identity verification provider, to verify you/,
    );
    await expect(page.getByRole('link', { name: /privacy notice/ }).getAttribute('href')).resolves.toBe(
      'https://merchant.example/privacy',
    );
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/verification-consent.png`, fullPage: true });
    // The box is required: the browser does not submit without it.
    await page.getByRole('button', { name: 'Continue to verification' }).click();
    expect(new URL(page.url()).pathname).toBe(new URL(link.verification_url).pathname);
    await expect(
      page
        .getByRole('checkbox')
        .evaluate((el) => (el as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing),
    ).resolves.toBe(true);
    // Nothing reached Sumsub: no data, no level change, no WebSDK link.
    expect(standin.control.requests.length).toBe(before);
    expect(a.fixedInfo).toBeUndefined();
    await page.getByRole('checkbox', { name: /I have read this and agree/ }).check();
    await page.getByRole('button', { name: 'Continue to verification' }).click();
    await page.waitForURL(/\/websdk\/p\//);
    expect(a.fixedInfo).toEqual({ firstName: 'Jane', lastName: 'Roe' });
    // Back on our link later: the acceptance is shown, one click continues.
    await page.goto(link.verification_url);
    await expect(page.getByRole('status').textContent()).resolves.toMatch(/^You accepted this on /);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/verification-consent-accepted.png`, fullPage: true });
    await page.getByRole('button', { name: 'Continue to verification' }).click();
    await page.waitForURL(/\/websdk\/p\//);
  });
});
