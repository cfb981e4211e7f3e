/**
 * Headless Chromium signs a two-signer request through the hosted page (screenshots at 1280 and
 * 390 px when CONTRACT_SCREENSHOT_DIR is set), declines another, then the sealed PDF is downloaded
 * and its text holds the stamped values and the audit page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfText } from '../billing/fixtures';
import { createTestApp, type TestContext } from '../helpers/app';
import { hasChromium, launchChromium } from '../helpers/browser';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { freePort } from '../helpers/process';
import { byRole, call, createTemplate, getReq, participants, send } from './fixtures';

const SHOTS = process.env.CONTRACT_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('hosted signing page in Chromium', () => {
  let ctx: TestContext;
  let owner: TestCaller;
  let browser: Browser;
  let templateId: string;

  beforeAll(async () => {
    const port = await freePort();
    ctx = await createTestApp({ env: { SVC_PUBLIC_URL: `http://127.0.0.1:${port}` } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    owner = await createTestClient(ctx);
    templateId = (await createTemplate(ctx, owner)).template_id;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await ctx?.close();
  });

  it('two signers sign in order; the sealed PDF holds the values and the audit page', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: participants('b1'),
      field_values: { note: 'Delivery in May' },
    });
    for (const [role, width, typed] of [
      ['client', 1280, 'Cleo A. Client'],
      ['company', 390, 'Cory B. Company'],
    ] as const) {
      const cur = await getReq(ctx, owner, r.contract_request_id);
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(byRole(cur, role).signing_url!);
      expect(await page.locator('h2#act').textContent()).toContain('Sign as');
      expect(await page.locator('h1').first().textContent()).toContain('Service agreement');
      const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
      expect(overflow).toBe(false);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/sign-${role}-${width}.png`, fullPage: true });
      await page.fill(`input[name="f_${role}_sig"]`, typed);
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Sign")')]);
      await page.waitForSelector('text=You have signed');
      await page.close();
    }
    const done = await getReq(ctx, owner, r.contract_request_id);
    expect(done.status).toBe('completed');
    const pdf = await call(ctx, owner)(
      'GET',
      `/contracts/requests/${r.contract_request_id}/documents/${done.documents[0]!.document_id}`,
    );
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Cleo A. Client');
    expect(text).toContain('Cory B. Company');
    expect(text).toContain('Delivery in May');
    expect(text).toContain('Audit page');
  }, 120_000);

  it('declines another request with a reason', async () => {
    const r = await send(ctx, owner, { template_id: templateId, participants: participants('b2') });
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    await page.goto(byRole(r, 'client').signing_url!);
    await page.click('summary:has-text("Decline to sign")');
    await page.fill('textarea[name="reason"]', 'Terms do not match');
    await page.click('button:has-text("Decline")');
    await page.waitForSelector('text=You declined to sign');
    await page.close();
    const cur = await getReq(ctx, owner, r.contract_request_id);
    expect(cur.status).toBe('declined');
    expect(byRole(cur, 'client').status).toBe('declined');
    expect(byRole(cur, 'company').status).toBe('canceled');
  }, 60_000);
});
