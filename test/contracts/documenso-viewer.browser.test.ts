/**
 * A viewer when Documenso hosts the signing (production mode against the Documenso stand-in, PGlite,
 * Chromium): Documenso's page shows a CC no document before completion, so the viewer is never handed
 * over. After our email code, our own page shows it the original PDF and records `viewed` itself
 * (Documenso's CC stays unopened); the signers are still handed over to Documenso; once the request is
 * completed the viewer's page shows Documenso's sealed PDF, byte for byte. Screenshots go to
 * DOCUMENSO_SCREENSHOT_DIR when it is set.
 */
import { describe, expect, it } from 'vitest';
import { hasChromium } from '../helpers/browser';
import { documensoPageSuite } from '../helpers/documenso-app';
import { runJobs } from '../helpers/jobs';
import { byRole, call, createTemplate, getReq, participants, send } from './fixtures';

describe.skipIf(!hasChromium)('a viewer on our page when Documenso hosts the signing', () => {
  const s = documensoPageSuite();

  /** Two signers (the company signing in `companyOrder`) and a viewer, `auditor`, in the first group. */
  const withViewer = async (name: string, companyOrder: number) =>
    (
      await createTemplate(s.ctx, s.w.caller, {
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
    const r = await send(s.ctx, s.w.caller, {
      template_id: templateId,
      participants: [
        ...participants('v1'),
        { role: 'auditor', name: 'Vic Viewer', email: 'vicv1@example.com', auth: 'email_otp' },
      ],
    });
    expect(r.status).toBe('sent');
    const env = [...s.standin.control.store.envelopes.values()].find(
      (e) => e.externalId === r.contract_request_id,
    )!;
    const cc = env.recipients.find((x) => x.email === 'vicv1@example.com')!;
    expect(cc.role).toBe('CC'); // kept at Documenso (its records name every party); never handed out

    // The viewer: our email code first, then our page with the original PDF, never Documenso's.
    const viewerUrl = byRole(r, 'auditor').signing_url!;
    await s.passEmailCode(viewerUrl, 'vicv1@example.com');
    await s.page.getByRole('heading', { name: 'View only' }).waitFor();
    expect(s.page.url()).toBe(viewerUrl);
    expect(await s.page.locator('h1').first().textContent()).toContain('Service agreement');
    expect(await s.page.getByRole('button', { name: 'Sign' }).count()).toBe(0);
    const original = await s.page.locator('iframe.pdf').getAttribute('src');
    const originalPdf = await s.page.request.get(new URL(original!, viewerUrl).toString());
    expect(originalPdf.headers()['content-type']).toBe('application/pdf');
    const doc = (await getReq(s.ctx, s.w.caller, r.contract_request_id)).documents.find(
      (d) => d.kind === 'original',
    )!;
    expect(original).toContain(doc.document_id);
    await s.shot('documenso-viewer-original');

    let cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(byRole(cur, 'auditor').status).toBe('viewed');
    expect(cc.readStatus).toBe('NOT_OPENED'); // recorded by us, not read back from Documenso
    const trail = (
      await call(s.ctx, s.w.caller)('GET', `/contracts/requests/${r.contract_request_id}/events`)
    ).json().events as { type: string; participant_id: string | null }[];
    const viewerId = byRole(cur, 'auditor').participant_id;
    expect(trail.filter((e) => e.participant_id === viewerId).map((e) => e.type)).toEqual(
      expect.arrayContaining(['participant.otp_verified', 'participant.viewed']),
    );
    // A second visit changes nothing.
    await s.page.reload();
    expect((await getReq(s.ctx, s.w.caller, r.contract_request_id)).participants.length).toBe(3);

    // A signer is still handed over to Documenso.
    const handed = await s.ctx.app.inject({
      method: 'GET',
      url: new URL(byRole(cur, 'client').signing_url!).pathname,
    });
    expect(handed.statusCode).toBe(303);
    expect(handed.headers.location).toContain(`${s.standin.appUrl}/sign/`);

    const [client, company] = env.recipients;
    await s.standin.control.sign(env.id, client!.id);
    await s.standin.control.sign(env.id, company!.id);
    await runJobs(s.ctx);
    cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    expect(byRole(cur, 'auditor').status).toBe('viewed');
    const signed = cur.documents.find((d) => d.kind === 'signed')!;

    // After completion: the viewer's page shows the sealed PDF, Documenso's bytes.
    await s.page.goto(viewerUrl);
    await s.page.getByText('Everyone has signed').waitFor();
    expect(await s.page.locator('.fbox').count()).toBe(0); // the sealed PDF holds the values
    const src = await s.page.locator('iframe.pdf').getAttribute('src');
    expect(src).toContain(signed.document_id);
    const sealedPdf = await s.page.request.get(new URL(src!, viewerUrl).toString());
    expect(sealedPdf.headers()['content-type']).toBe('application/pdf');
    expect(Buffer.from(await sealedPdf.body()).equals(env.items[0]!.signed!)).toBe(true);
    await s.shot('documenso-viewer-sealed');
    expect(s.standin.control.problems).toEqual([]);
  }, 120_000);

  it("without an email code the viewer's opening is recorded at once; a signer's link never serves the sealed PDF", async () => {
    const templateId = await withViewer('Agreement with observer', 1);
    const r = await send(s.ctx, s.w.caller, {
      template_id: templateId,
      participants: [
        ...participants('v2'),
        { role: 'auditor', name: 'Vera Viewer', email: 'verav2@example.com' },
      ],
    });
    const env = [...s.standin.control.store.envelopes.values()].find(
      (e) => e.externalId === r.contract_request_id,
    )!;
    const viewerPath = new URL(byRole(r, 'auditor').signing_url!).pathname;
    // Without an email code the viewer opens the page at once; viewed is recorded.
    const first = await s.ctx.app.inject({ method: 'GET', url: viewerPath });
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('View only');
    expect(byRole(await getReq(s.ctx, s.w.caller, r.contract_request_id), 'auditor').status).toBe('viewed');

    for (const x of env.recipients.filter((x) => x.role === 'SIGNER'))
      await s.standin.control.sign(env.id, x.id);
    await runJobs(s.ctx);
    const cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    const signed = cur.documents.find((d) => d.kind === 'signed')!;
    expect(
      (await s.ctx.app.inject({ method: 'GET', url: `${viewerPath}/documents/${signed.document_id}` }))
        .statusCode,
    ).toBe(200);
    // A signer's link (the signer completed) does not serve the sealed document.
    const signerPath = new URL(byRole(r, 'client').signing_url!).pathname;
    expect(
      (await s.ctx.app.inject({ method: 'GET', url: `${signerPath}/documents/${signed.document_id}` }))
        .statusCode,
    ).toBe(404);
  }, 60_000);
});
