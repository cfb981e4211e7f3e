/**
 * End to end in production mode on PostgreSQL (SVC_ENVIRONMENT=production, SVC_VERIFICATION_PROVIDER=sumsub
 * against the Sumsub stand-in): a person completes KYC in Chromium through the stand-in's WebSDK
 * page, a RETRY rejection is resubmitted to approval, a FINAL rejection stays final, a document is
 * downloaded, a KYB verification brings its key people, a level upgrade waits for the enhanced
 * review, an officer's GREEN turned RED reaches the subject, and Sumsub down gives a clean 503.
 * One service start for the file. Runs on the PostgreSQL pass only (skipped without Chromium).
 */
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KycMessages } from '../../src/modules/kyc/kyc.messages';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/process';
import { ALL_GROUPS, api, createKycWorld, createLink, type KycWorld, setGroups } from '../kyc/fixtures';
import { STANDIN_KEY_PEOPLE, STANDIN_PRODUCTION_TOKEN, sumsubEnv } from '../kyc/sumsub-fixtures';
import { type SumsubStandin, startSumsubStandin } from '../standins/sumsub/server';
import { digest } from '../standins/sumsub/webhooks';

const onPostgres = process.env.TEST_ENGINE === 'postgres';

describe.skipIf(!hasChromium || !onPostgres)('Sumsub in production, end to end', () => {
  let ctx: TestContext;
  let standin: SumsubStandin;
  let browser: Browser;
  let page: Page;
  let w: KycWorld;

  beforeAll(async () => {
    standin = await startSumsubStandin({ webhookUrl: null, appToken: STANDIN_PRODUCTION_TOKEN });
    const port = await freePort();
    ctx = await createTestApp({
      env: { ...PRODUCTION_ENV, ...sumsubEnv(standin.url), SVC_PUBLIC_URL: `http://127.0.0.1:${port}` },
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

  /** Opens our link, accepts the disclosure (nothing reaches Sumsub before), is handed to the WebSDK. */
  async function openLink(url: string) {
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Before you start');
    await page.getByRole('checkbox', { name: /I have read this and agree/ }).check();
    await page.getByRole('button', { name: 'Continue to verification' }).click();
    await page.waitForURL(/\/websdk\/p\//);
  }

  /** Opens our link, is handed to the WebSDK, submits with the tester's choice, lands on our result page. */
  async function verifyInBrowser(url: string, button: RegExp) {
    await openLink(url);
    await page.getByRole('button', { name: button }).click();
    await page.waitForURL(/\/verify\/[^/]+\/complete$/);
    return page.getByRole('heading', { level: 1 }).textContent();
  }

  const detail = async (who: KycWorld) =>
    (await api(ctx, 'GET', `/kyc/detail/${who.userId}`, who.caller.headers)).json();

  it('KYC approved in the WebSDK; extended groups only once granted; a document downloaded', async () => {
    const link = await createLink(ctx, w, { level: 'enhanced' });
    expect(await verifyInBrowser(link.verification_url, /approve \(GREEN\)/)).toBe('Verification approved');
    const r = await detail(w);
    expect(r).toMatchObject({
      status: 'approved',
      data_trusted: true,
      first_name: 'Jane',
      liveness_status: 'passed',
    });
    expect([r.document_number, r.documents, r.poa, r.sof_questionnaire, r.aml_hits]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    await setGroups(ctx, w.caller.clientId, ALL_GROUPS);
    const granted = await detail(w);
    expect(granted.document_number).toMatch(/^P\d+/);
    expect(granted.poa).toMatchObject({ city: 'London' });
    expect(granted.sof_questionnaire.answers.source).toBe('employment_income');
    const doc = await api(ctx, 'GET', `/kyc/detail/${w.userId}/documents/passport`, w.caller.headers);
    expect(doc.statusCode).toBe(200);
    expect(doc.headers['content-type']).toBe('image/png');
    expect(doc.rawPayload.subarray(1, 4).toString()).toBe('PNG');
  });

  it('a RETRY rejection, resubmitted in the WebSDK, to approval', async () => {
    const other = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, other, { level: 'basic' });
    expect(await verifyInBrowser(link.verification_url, /may retry/)).toBe('Verification declined');
    expect((await detail(other)).status).toBe('declined');
    const again = await api(ctx, 'POST', `/kyc/${other.userId}/resubmit`, other.caller.headers, {});
    expect(again.statusCode).toBe(201);
    await openLink(again.json().verification_url);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/clearer photo/);
    await page.getByRole('button', { name: /approve \(GREEN\)/ }).click();
    await page.waitForURL(/\/complete$/);
    expect((await detail(other)).status).toBe('approved');
    const user = (await api(ctx, 'GET', `/kyc/users/${other.userId}`, other.caller.headers)).json();
    expect(user.kyc_status).toBe('approved');
  });

  it('a FINAL rejection stays final: the WebSDK offers no resubmission', async () => {
    const other = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, other, {});
    expect(await verifyInBrowser(link.verification_url, /for good/)).toBe('Verification declined');
    const again = await api(ctx, 'POST', `/kyc/${other.userId}/resubmit`, other.caller.headers, {});
    await openLink(again.json().verification_url);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Verification rejected',
    );
    expect(await page.getByRole('button').count()).toBe(0);
    expect(
      (await api(ctx, 'GET', `/kyc/users/${other.userId}`, other.caller.headers)).json().kyc_status,
    ).toBe('rejected');
  });

  it('KYB verified in the WebSDK with its key people', async () => {
    const link = await createLink(ctx, w, {}, 'kyb');
    expect(await verifyInBrowser(link.verification_url, /approve \(GREEN\)/)).toBe('Verification approved');
    const r = (await api(ctx, 'GET', `/kyb/detail/${w.businessId}`, w.caller.headers)).json();
    expect(r).toMatchObject({
      status: 'approved',
      company_name: 'Roe Trading Ltd',
      registry_status: 'verified',
    });
    expect(r.business_key_people).toEqual(STANDIN_KEY_PEOPLE);
  });

  it('approved at basic, then an enhanced link: no approval until the enhanced review', async () => {
    const other = await createKycWorld(ctx, { productionAccess: true });
    const basic = await createLink(ctx, other, { level: 'basic' });
    expect(await verifyInBrowser(basic.verification_url, /approve \(GREEN\)/)).toBe('Verification approved');
    const enhanced = await createLink(ctx, other, { level: 'enhanced' });
    // Opening the enhanced link moves the applicant to the enhanced level: its review starts over.
    await openLink(enhanced.verification_url);
    await expect(page.getByText('enhanced-kyc-level').count()).resolves.toBe(1);
    const a = standin.control.byExternalUserId(`svc-kyc-${other.userId}`)!;
    expect(a.review).toMatchObject({ levelName: 'enhanced-kyc-level', reviewStatus: 'init' });
    // A resent webhook of the basic approval does not approve the enhanced link.
    const basicReviewed = standin.control.webhooks.sent.findLast(
      (s) => JSON.parse(s.body).applicantId === a.id && JSON.parse(s.body).type === 'applicantReviewed',
    )!;
    await fetch(standin.control.webhooks.settings.url!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-payload-digest': digest('HMAC_SHA256_HEX', 'standin-webhook-secret', `${basicReviewed.body} `),
        'x-payload-digest-alg': 'HMAC_SHA256_HEX',
      },
      body: `${basicReviewed.body} `,
    });
    const history = async () =>
      (await api(ctx, 'GET', `/kyc/detail/${other.userId}/history`, other.caller.headers)).json().records as {
        verification_id: string;
        status: string;
      }[];
    expect((await history()).map((r) => r.verification_id)).toEqual([basic.verification_id]);
    await page.getByRole('button', { name: /approve \(GREEN\)/ }).click();
    await page.waitForURL(/\/complete$/);
    const records = await history();
    expect(records.map((r) => [r.verification_id, r.status])).toEqual([
      [enhanced.verification_id, 'approved'],
      [basic.verification_id, 'approved'],
    ]);
    expect((await detail(other)).poa_status).toBe('approved');
  });

  it('GREEN turned RED by the officer reaches the record and the subject', async () => {
    const other = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, other, {});
    expect(await verifyInBrowser(link.verification_url, /approve \(GREEN\)/)).toBe('Verification approved');
    const a = standin.control.byExternalUserId(`svc-kyc-${other.userId}`)!;
    await standin.control.redecide(a.id, 'reject_final', { aml: true });
    expect(await detail(other)).toMatchObject({ status: 'declined', aml_status: 'potential_match' });
    expect(
      (await api(ctx, 'GET', `/kyc/users/${other.userId}`, other.caller.headers)).json().kyc_status,
    ).toBe('rejected');
  });

  it('Sumsub down mid-link: a clean 503, nothing written', async () => {
    const other = await createKycWorld(ctx, { productionAccess: true });
    standin.control.setDown(true);
    try {
      const res = await api(
        ctx,
        'POST',
        `/kyc/users/${other.userId}/verification-link`,
        other.caller.headers,
        {},
      );
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ detail: KycMessages.providerUnavailable });
      expect(
        (await api(ctx, 'GET', `/kyc/users/${other.userId}`, other.caller.headers)).json().kyc_status,
      ).toBe('none');
    } finally {
      standin.control.setDown(false);
    }
  });
});
