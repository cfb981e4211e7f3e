/**
 * End to end in production mode on PostgreSQL (SVC_ENVIRONMENT=production, SVC_ESIGN_PROVIDER=documenso
 * against the Documenso stand-in, a test bank for the payment link): a contract with two signers and a
 * CC, the first behind our email code, is signed in Chromium on the stand-in's signing page and ends
 * completed with Documenso's sealed PDF byte for byte, our certificate and the payment link; a declined
 * one keeps its reason; duplicate, held and reordered webhooks change nothing twice; a wrong secret is
 * 401; lost webhooks are caught up by the e-signing reconciliation loop; a corrected participant's old Documenso link stops
 * working; an expired request is cancelled at Documenso; Documenso down leaves the request pending with nothing written at Documenso and the signing page
 * answers 503, and the worker creates the envelope once Documenso is back.
 * Runs on the PostgreSQL pass only (skipped without Chromium). Screenshots go to
 * DOCUMENSO_SCREENSHOT_DIR when it is set.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractParticipants, contractRequests, events, transactions } from '../../src/db/schema/index';
import { reconcileHostedEnvelopes } from '../../src/modules/contracts/esign-reconciliation.worker';
import { expireDueRequests } from '../../src/modules/contracts/requests/requests.jobs';
import { modules } from '../../src/modules/index';
import { byRole, call, createTemplate, getReq, participants, send } from '../contracts/fixtures';
import { hasChromium } from '../helpers/browser';
import { documensoPageSuite } from '../helpers/documenso-app';
import { runJobs } from '../helpers/jobs';
import { acmeBankProvider } from '../providers/fakebank/index';

const onPostgres = process.env.TEST_ENGINE === 'postgres';

describe.skipIf(!hasChromium || !onPostgres)('Documenso in production, end to end', () => {
  const s = documensoPageSuite({
    env: { SVC_BANK_PROVIDER: 'acmebank', SVC_ACME_SECRET: 'acme-notification-secret' },
    providerDefinitions: [acmeBankProvider],
  });
  let templateId: string;
  beforeAll(async () => {
    templateId = (await createTemplate(s.ctx, s.w.caller)).template_id;
  });

  const envelopeOf = async (id: string) => {
    const r = await getReq(s.ctx, s.w.caller, id);
    const [row] = await s.ctx.db
      .select({ ref: contractParticipants.providerRecipientRef })
      .from(contractParticipants)
      .where(eq(contractParticipants.id, r.participants[0]!.participant_id));
    const env = [...s.standin.control.store.envelopes.values()].find((e) => e.externalId === id)!;
    return { r, env, firstRef: row?.ref };
  };

  /** On the stand-in's page: fills the signature boxes and signs. */
  async function signOnDocumenso(shot?: string) {
    await s.page.waitForURL(`${s.standin.appUrl}/sign/**`);
    await expect(s.page.locator('h1').textContent()).resolves.toContain('Service agreement');
    for (const input of await s.page.locator('input[name^="field_"]:not([readonly])').all())
      await input.fill('Signed in Chromium');
    if (shot) await s.shot(shot);
    await s.page.getByRole('button', { name: 'Sign' }).click();
    await s.page.getByRole('heading', { name: 'Document signed' }).waitFor();
  }

  it('two signers (one behind our email code) and a CC: signed in Chromium on Documenso, sealed PDF byte for byte, payment link created', async () => {
    const ps = participants('d1');
    const r = await send(s.ctx, s.w.caller, {
      template_id: templateId,
      participants: [{ ...ps[0], auth: 'email_otp' }, ps[1]],
      cc_recipients: [{ email: 'carla-d1@example.com', name: 'Carla', when: 'on_send' }],
      field_values: { note: 'Net 30' },
      payment: { amount: '49.90', currency: 'EUR', project_id: s.w.projectId, user_id: s.w.userId },
    });
    expect(r.status).toBe('sent');
    const { env } = await envelopeOf(r.contract_request_id);
    expect(env.status).toBe('PENDING');
    expect(env.meta.distributionMethod).toBe('NONE');
    expect(env.recipients.map((x) => [x.email, x.role])).toEqual([
      ['cleod1@example.com', 'SIGNER'],
      ['coryd1@example.com', 'SIGNER'],
      ['carla-d1@example.com', 'CC'],
    ]);
    expect(s.mailer().lastTo('carla-d1@example.com')).toBeTruthy();

    // The client passes our email-code gate, then signs on Documenso's page.
    await s.passEmailCode(byRole(r, 'client').signing_url!, 'cleod1@example.com', 'documenso-our-gate');
    await signOnDocumenso('documenso-sign-client');
    let cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(byRole(cur, 'client').status).toBe('completed');
    expect(byRole(cur, 'company').status).toBe('sent');
    expect(cur.status).toBe('in_progress');

    await s.page.goto(byRole(cur, 'company').signing_url!);
    await signOnDocumenso('documenso-sign-company');
    await runJobs(s.ctx);
    cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    expect(cur.certificate_sha256).toMatch(/^[0-9a-f]{64}$/);
    const signed = cur.documents.find((d) => d.kind === 'signed')!;
    const pdf = await call(s.ctx, s.w.caller)(
      'GET',
      `/contracts/requests/${r.contract_request_id}/documents/${signed.document_id}`,
    );
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.equals(env.items[0]!.signed!)).toBe(true);
    expect(cur.payment?.transaction_id).toBeTruthy();
    expect(cur.payment?.checkout_url).toMatch(/\/checkout\//);
    const [tx] = await s.ctx.db
      .select({ amount: transactions.amount, contract: transactions.contractRequestId })
      .from(transactions)
      .where(eq(transactions.id, cur.payment!.transaction_id!));
    expect(tx).toMatchObject({ contract: r.contract_request_id });
    const cert = await call(s.ctx, s.w.caller)(
      'GET',
      `/contracts/requests/${r.contract_request_id}/certificate`,
    );
    expect(cert.statusCode).toBe(200);
    const trail = (
      await call(s.ctx, s.w.caller)('GET', `/contracts/requests/${r.contract_request_id}/events`)
    ).json().events as { type: string }[];
    expect(trail.map((e) => e.type)).toEqual(
      expect.arrayContaining(['participant.otp_verified', 'participant.completed', 'request.completed']),
    );
    expect(s.standin.control.problems).toEqual([]);
  });

  it('declined on Documenso with a reason: the request is declined, the other participant canceled', async () => {
    const r = await send(s.ctx, s.w.caller, { template_id: templateId, participants: participants('d2') });
    await s.page.goto(byRole(r, 'client').signing_url!);
    await s.page.waitForURL(`${s.standin.appUrl}/sign/**`);
    await s.page.fill('textarea[name="reason"]', 'The price is wrong');
    await s.shot('documenso-reject');
    await s.page.getByRole('button', { name: 'Reject' }).click();
    await s.page.getByRole('heading', { name: 'Document rejected' }).waitFor();
    const cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(cur.status).toBe('declined');
    const client = cur.participants.find((p) => p.role === 'client') as unknown as {
      status: string;
      decline_reason: string;
    };
    expect(client).toMatchObject({ status: 'declined', decline_reason: 'The price is wrong' });
    expect(byRole(cur, 'company').status).toBe('canceled');
  });

  it('duplicate, held and reordered webhooks change nothing twice; a wrong secret is 401', async () => {
    const r = await send(s.ctx, s.w.caller, { template_id: templateId, participants: participants('d3') });
    const { env } = await envelopeOf(r.contract_request_id);
    const hooks = s.standin.control.webhooks;
    hooks.duplicate = true;
    hooks.hold = true;
    await s.standin.control.open(env.id, env.recipients[0]!.id);
    await s.standin.control.sign(env.id, env.recipients[0]!.id);
    hooks.hold = false;
    await hooks.flush(); // newest first, each twice
    hooks.duplicate = false;
    const cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(byRole(cur, 'client').status).toBe('completed');
    expect(byRole(cur, 'company').status).toBe('sent');
    const moves = await s.ctx.db
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.type, 'contract.participant.status_changed')));
    const client = moves
      .map((m) => m.data as { participant_id: string; current_status: string })
      .filter((d) => d.participant_id === byRole(r, 'client').participant_id)
      .map((d) => d.current_status);
    // Each move once (the events' order within one manual-clock instant is not asserted).
    expect(client.sort()).toEqual(['completed', 'sent', 'viewed', 'waiting']);
    const forged = await fetch(s.hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-documenso-secret': 'not-the-secret-at-all-0000' },
      body: JSON.stringify({ event: 'DOCUMENT_COMPLETED', payload: { envelopeId: env.id } }),
    });
    expect(forged.status).toBe(401);
  });

  it('lost webhooks: the e-signing reconciliation loop reads live envelopes again and catches up, to completion', async () => {
    // The contracts feature's one loop, there because the port has the reconcile part.
    const loops = modules.find((m) => m.name === 'contracts')?.workers?.(s.ctx.deps) ?? [];
    expect(loops.map((l) => l.name)).toEqual(['esign-reconciliation']);
    const r = await send(s.ctx, s.w.caller, { template_id: templateId, participants: participants('d9') });
    const { env } = await envelopeOf(r.contract_request_id);
    s.standin.control.webhooks.drop = true;
    await s.standin.control.sign(env.id, env.recipients[0]!.id);
    await s.standin.control.sign(env.id, env.recipients[1]!.id);
    s.standin.control.webhooks.drop = false;
    expect((await getReq(s.ctx, s.w.caller, r.contract_request_id)).status).toBe('sent');
    s.ctx.clock.advance(601_000);
    expect(await loops[0]!.runOnce()).toBeGreaterThanOrEqual(1);
    await runJobs(s.ctx);
    const cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    const signed = cur.documents.find((d) => d.kind === 'signed')!;
    const pdf = await call(s.ctx, s.w.caller)(
      'GET',
      `/contracts/requests/${r.contract_request_id}/documents/${signed.document_id}`,
    );
    expect(pdf.rawPayload.equals(env.items[0]!.signed!)).toBe(true);
    // Read just now: not claimed again before the interval.
    expect(await reconcileHostedEnvelopes(s.ctx.deps, 100)).toBe(0);
  });

  it('a corrected participant: the old Documenso link stops working, the new one signs', async () => {
    const r = await send(s.ctx, s.w.caller, { template_id: templateId, participants: participants('d7') });
    const { env } = await envelopeOf(r.contract_request_id);
    const oldToken = env.recipients[0]!.token;
    const patched = await call(s.ctx, s.w.caller)(
      'PATCH',
      `/contracts/requests/${r.contract_request_id}/participants/${byRole(r, 'client').participant_id}`,
      { email: 'cleo-new-d7@example.com' },
    );
    expect(patched.statusCode).toBe(200);
    await runJobs(s.ctx);
    expect((await fetch(`${s.standin.appUrl}/sign/${oldToken}`)).status).toBe(404);
    const fresh = env.recipients.find((x) => x.email === 'cleo-new-d7@example.com')!;
    expect(env.fields.filter((f) => f.recipientId === fresh.id).length).toBeGreaterThan(0);
    await s.page.goto(byRole(patched.json(), 'client').signing_url!);
    await signOnDocumenso();
    expect(byRole(await getReq(s.ctx, s.w.caller, r.contract_request_id), 'client').status).toBe('completed');
  });

  it('Documenso down: the request waits (nothing at Documenso), the signing page answers 503, the worker sends it once Documenso is back', async () => {
    const live = await send(s.ctx, s.w.caller, { template_id: templateId, participants: participants('d4') });
    const before = s.standin.control.store.envelopes.size;
    s.standin.control.setDown(true);
    const res = await call(s.ctx, s.w.caller)('POST', '/contracts/send', {
      template_id: templateId,
      participants: participants('d5'),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().status).toBe('pending');
    expect(s.standin.control.store.envelopes.size).toBe(before);
    const handover = await fetch(byRole(live, 'client').signing_url!, { redirect: 'manual' });
    expect(handover.status).toBe(503);
    expect(await handover.text()).toContain('Signing is unavailable');
    expect(byRole(await getReq(s.ctx, s.w.caller, live.contract_request_id), 'client').status).toBe('sent');
    s.standin.control.setDown(false);
    s.ctx.clock.advance(60_000);
    await runJobs(s.ctx);
    const sent = await getReq(s.ctx, s.w.caller, res.json().contract_request_id);
    expect(sent.status).toBe('sent');
    expect(s.standin.control.store.envelopes.size).toBe(before + 1);
  });

  it('a viewer who never acts does not hold the contract open: the signers sign, the sealed PDF is stored', async () => {
    const problemsBefore = s.standin.control.problems.length;
    const withViewer = (
      await createTemplate(s.ctx, s.w.caller, {
        name: 'Service agreement with auditor',
        roles: [
          { role: 'client', kind: 'signer', signing_order: 1 },
          { role: 'company', kind: 'signer', signing_order: 2 },
          { role: 'auditor', kind: 'viewer', signing_order: 1 },
        ],
      })
    ).template_id;
    const r = await send(s.ctx, s.w.caller, {
      template_id: withViewer,
      participants: [
        ...participants('d9'),
        { role: 'auditor', name: 'Vic Viewer', email: 'vicd9@example.com' },
      ],
      expires_in_days: 200,
    });
    expect(r.status).toBe('sent');
    const { env } = await envelopeOf(r.contract_request_id);
    // The viewer is a CC there (a Documenso VIEWER would have to act before sealing); no link expires
    // at Documenso before our 200 days.
    expect(env.recipients.map((x) => [x.email, x.role, x.expiresAt])).toEqual([
      ['cleod9@example.com', 'SIGNER', null],
      ['coryd9@example.com', 'SIGNER', null],
      ['vicd9@example.com', 'CC', null],
    ]);
    const [client, company] = env.recipients;
    await s.standin.control.sign(env.id, client!.id);
    await s.standin.control.sign(env.id, company!.id);
    expect(env.status).toBe('COMPLETED');
    await runJobs(s.ctx);
    const cur = await getReq(s.ctx, s.w.caller, r.contract_request_id);
    expect(cur.status).toBe('completed');
    expect(byRole(cur, 'auditor').status).toBe('sent');
    const signed = cur.documents.find((d) => d.kind === 'signed')!;
    const pdf = await call(s.ctx, s.w.caller)(
      'GET',
      `/contracts/requests/${r.contract_request_id}/documents/${signed.document_id}`,
    );
    expect(pdf.rawPayload.equals(env.items[0]!.signed!)).toBe(true);
    expect(s.standin.control.problems.slice(problemsBefore)).toEqual([]);
  });

  it('an expired request is cancelled at Documenso (nobody can sign there any more)', async () => {
    const late = await send(s.ctx, s.w.caller, { template_id: templateId, participants: participants('d8') });
    const { env } = await envelopeOf(late.contract_request_id);
    s.ctx.clock.advance(31 * 86_400_000);
    expect(await expireDueRequests(s.ctx.deps)).toBeGreaterThanOrEqual(1);
    await runJobs(s.ctx);
    const [row] = await s.ctx.db
      .select({ status: contractRequests.status })
      .from(contractRequests)
      .where(eq(contractRequests.id, late.contract_request_id));
    expect(row?.status).toBe('expired');
    expect(env.status).toBe('CANCELLED');
  });
});
