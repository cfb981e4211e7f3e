/**
 * A viewer when Documenso hosts the signing (production mode against the Documenso stand-in, PGlite,
 * Chromium): Documenso's page shows a CC no document before completion, so the viewer is never handed
 * over. After our email code, our own page shows it the original PDF and records `viewed` itself
 * (Documenso's CC stays unopened); the signers are still handed over to Documenso; once the request is
 * completed the viewer's page shows Documenso's sealed PDF, byte for byte. Screenshots go to
 * DOCUMENSO_SCREENSHOT_DIR when it is set.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryMailer, TestContext } from '../helpers/app';
import { closeInTurn, hasChromium, launchChromium } from '../helpers/browser';
import { startDocumensoApp } from '../helpers/documenso-app';
import { runJobs } from '../helpers/jobs';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import type { DocumensoStandin } from '../standins/documenso/server';
import { byRole, call, createTemplate, getReq, participants, send } from './fixtures';

const SHOTS = process.env.DOCUMENSO_SCREENSHOT_DIR;

describe.skipIf(!hasChromium)('a viewer on our page when Documenso hosts the signing', () => {
  let ctx: TestContext;
  let standin: DocumensoStandin;
  let browser: Browser;
  let page: Page;
  let w: PaymentWorld;

  beforeAll(async () => {
    ({ ctx, standin } = await startDocumensoApp());
    w = await createPaymentWorld(ctx, { productionAccess: true });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => browser?.close(),
      ctx: () => ctx?.close(),
      standin: () => standin?.close(),
    }),
  );

  const mailer = () => ctx.mailer as MemoryMailer;
  /** Two signers (the company signing in `companyOrder`) and a viewer, `auditor`, in the first group. */
  const withViewer = async (name: string, companyOrder: number) =>
    (
      await createTemplate(ctx, w.caller, {
        name,
        roles: [
          { role: 'client', kind: 'signer', signing_order: 1 },
          { role: 'company', kind: 'signer', signing_order: companyOrder },
          { role: 'auditor', kind: 'viewer', signing_order: 1 },
        ],
      })
    ).template_id;

  it('sees the original behind the email code (viewed recorded by us), then the sealed PDF', async () => {
    const templateId = await withViewer('Service agreement with auditor', 2);
    const r = await send(ctx, w.caller, {
      template_id: templateId,
      participants: [
        ...participants('v1'),
        { role: 'auditor', name: 'Vic Viewer', email: 'vicv1@example.com', auth: 'email_otp' },
      ],
    });
    expect(r.status).toBe('sent');
    const env = [...standin.control.store.envelopes.values()].find(
      (e) => e.externalId === r.contract_request_id,
    )!;
    const cc = env.recipients.find((x) => x.email === 'vicv1@example.com')!;
    expect(cc.role).toBe('CC'); // kept at Documenso (its records name every party); never handed out

    // The viewer: our email code first, then our page with the original PDF, never Documenso's.
    const viewerUrl = byRole(r, 'auditor').signing_url!;
    await page.goto(viewerUrl);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const code = /Your code is (\d{6})/.exec(mailer().lastTo('vicv1@example.com')!.text)![1]!;
    await page.fill('#code', code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'View only' }).waitFor();
    expect(page.url()).toBe(viewerUrl);
    expect(await page.locator('h1').first().textContent()).toContain('Service agreement');
    expect(await page.getByRole('button', { name: 'Sign' }).count()).toBe(0);
    const original = await page.locator('iframe.pdf').getAttribute('src');
    const originalPdf = await page.request.get(new URL(original!, viewerUrl).toString());
    expect(originalPdf.headers()['content-type']).toBe('application/pdf');
    const doc = (await getReq(ctx, w.caller, r.contract_request_id)).documents.find(
      (d) => d.kind === 'original',
    )!;
    expect(original).toContain(doc.document_id);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/documenso-viewer-original.png`, fullPage: true });

    let cur = await getReq(ctx, w.caller, r.contract_request_id);
    expect(byRole(cur, 'auditor').status).toBe('viewed');
    expect(cc.readStatus).toBe('NOT_OPENED'); // recorded by us, not read back from Documenso
    const trail = (
      await call(ctx, w.caller)('GET', `/contracts/requests/${r.contract_request_id}/events`)
    ).json().events as { type: string; participant_id: string | null }[];
    const viewerId = byRole(cur, 'auditor').participant_id;
    expect(trail.filter((e) => e.participant_id === viewerId).map((e) => e.type)).toEqual(
      expect.arrayContaining(['participant.otp_verified', 'participant.viewed']),
    );
    // A second visit changes nothing.
    await page.reload();
    expect((await getReq(ctx, w.caller, r.contract_request_id)).participants.length).toBe(3);

    // A signer is still handed over to Documenso.
    const handed = await ctx.app.inject({
      method: 'GET',
      url: new URL(byRole(cur, 'client').signing_url!).pathname,
    });
    expect(handed.statusCode).toBe(303);
    expect(handed.headers.location).toContain(`${standin.appUrl}/sign/`);

    const [client, company] = env.recipients;
    await standin.control.sign(env.id, client!.id);
    await standin.control.sign(env.id, company!.id);
    await runJobs(ctx);
    cur = await getReq(ctx, w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    expect(byRole(cur, 'auditor').status).toBe('viewed');
    const signed = cur.documents.find((d) => d.kind === 'signed')!;

    // After completion: the viewer's page shows the sealed PDF, Documenso's bytes.
    await page.goto(viewerUrl);
    await page.getByText('Everyone has signed').waitFor();
    expect(await page.locator('.fbox').count()).toBe(0); // the sealed PDF holds the values
    const src = await page.locator('iframe.pdf').getAttribute('src');
    expect(src).toContain(signed.document_id);
    const sealedPdf = await page.request.get(new URL(src!, viewerUrl).toString());
    expect(sealedPdf.headers()['content-type']).toBe('application/pdf');
    expect(Buffer.from(await sealedPdf.body()).equals(env.items[0]!.signed!)).toBe(true);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/documenso-viewer-sealed.png`, fullPage: true });
    expect(standin.control.problems).toEqual([]);
  }, 120_000);

  it("without an email code the viewer's opening is recorded at once; a signer's link never serves the sealed PDF", async () => {
    const templateId = await withViewer('Agreement with observer', 1);
    const r = await send(ctx, w.caller, {
      template_id: templateId,
      participants: [
        ...participants('v2'),
        { role: 'auditor', name: 'Vera Viewer', email: 'verav2@example.com' },
      ],
    });
    const env = [...standin.control.store.envelopes.values()].find(
      (e) => e.externalId === r.contract_request_id,
    )!;
    const viewerPath = new URL(byRole(r, 'auditor').signing_url!).pathname;
    // Without an email code the viewer opens the page at once; viewed is recorded.
    const first = await ctx.app.inject({ method: 'GET', url: viewerPath });
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('View only');
    expect(byRole(await getReq(ctx, w.caller, r.contract_request_id), 'auditor').status).toBe('viewed');

    for (const x of env.recipients.filter((x) => x.role === 'SIGNER'))
      await standin.control.sign(env.id, x.id);
    await runJobs(ctx);
    const cur = await getReq(ctx, w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    const signed = cur.documents.find((d) => d.kind === 'signed')!;
    expect(
      (await ctx.app.inject({ method: 'GET', url: `${viewerPath}/documents/${signed.document_id}` }))
        .statusCode,
    ).toBe(200);
    // A signer's link (the signer completed) does not serve the sealed document.
    const signerPath = new URL(byRole(r, 'client').signing_url!).pathname;
    expect(
      (await ctx.app.inject({ method: 'GET', url: `${signerPath}/documents/${signed.document_id}` }))
        .statusCode,
    ).toBe(404);
  }, 60_000);
});
