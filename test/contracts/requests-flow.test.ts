/**
 * Contract requests end to end through the sandbox provider: send from a template, signing order,
 * completion with the sealed PDF and certificate, decline cascading, void, expiry, failure by title,
 * the events, and cross-client 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfText } from '../billing/fixtures';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { byRole, call, createTemplate, makePdf, participants, send, simulate, TWO_SIGNERS } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let other: TestCaller;
let templateId: string;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  other = await createTestClient(ctx);
  templateId = (await createTemplate(ctx, owner)).template_id;
});
afterAll(() => ctx?.close());

describe('signing a request', () => {
  it('invites by signing order, completes, seals and certifies', async () => {
    const r = await send(ctx, owner, {
      template_id: templateId,
      participants: participants('1'),
      field_values: { note: 'Net 30' },
    });
    expect(r.status).toBe('sent');
    expect(byRole(r, 'client').status).toBe('sent');
    expect(byRole(r, 'company').status).toBe('waiting');
    expect(byRole(r, 'client').signing_url).toMatch(/^http:\/\/localhost:8000\/sign\/[A-Za-z0-9_-]{43}$/);
    let s = await simulate(ctx, owner, r.contract_request_id, 'view', byRole(r, 'client').participant_id);
    expect(s.statusCode).toBe(200);
    expect(byRole(s.json(), 'client').status).toBe('viewed');
    s = await simulate(ctx, owner, r.contract_request_id, 'sign', byRole(r, 'company').participant_id);
    expect(s.statusCode).toBe(400);
    s = await simulate(ctx, owner, r.contract_request_id, 'sign', byRole(r, 'client').participant_id);
    expect(s.json().status).toBe('in_progress');
    expect(byRole(s.json(), 'company').status).toBe('sent');
    s = await simulate(ctx, owner, r.contract_request_id, 'sign', byRole(r, 'company').participant_id);
    const done = s.json();
    expect(done.status).toBe('completed');
    expect(done.certificate_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(done.documents).toHaveLength(1);
    expect(done.documents[0].kind).toBe('signed');
    const pdf = await call(ctx, owner)(
      'GET',
      `/contracts/requests/${r.contract_request_id}/documents/${done.documents[0].document_id}`,
    );
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Cleo Client');
    expect(text).toContain('Cory Company');
    expect(text).toContain('Net 30');
    expect(text).toContain('Audit page');
    const cert = await call(ctx, owner)('GET', `/contracts/requests/${r.contract_request_id}/certificate`);
    expect(cert.statusCode).toBe(200);
    expect(await pdfText(cert.rawPayload)).toContain('Certificate of completion');
    const trail = await call(ctx, owner)('GET', `/contracts/requests/${r.contract_request_id}/events`);
    expect(trail.json().events.map((e: { type: string }) => e.type)).toContain('participant.completed');
  });

  it('an inline document creates an ad hoc template, hidden from the template list unless asked for', async () => {
    const r = await send(ctx, owner, {
      document: {
        file_name: 'one-off.pdf',
        content_base64: await makePdf(2, 'One-off agreement'),
        ...TWO_SIGNERS,
      },
      title: 'One-off agreement',
      participants: participants('adhoc'),
    });
    expect(r.status).toBe('sent');
    let s = await simulate(ctx, owner, r.contract_request_id, 'sign', byRole(r, 'client').participant_id);
    s = await simulate(ctx, owner, r.contract_request_id, 'sign', byRole(r, 'company').participant_id);
    expect(s.json().status).toBe('completed');
    const list = async (q: string) =>
      (await call(ctx, owner)('GET', `/contracts/templates${q}`)).json().templates as {
        template_id: string;
        is_ad_hoc: boolean;
      }[];
    expect((await list('')).some((t) => t.is_ad_hoc)).toBe(false);
    expect((await list('?include_ad_hoc=true')).some((t) => t.is_ad_hoc)).toBe(true);
  });

  it('a decline cancels the others; void and expire end a request; FAIL titles fail', async () => {
    const r = await send(ctx, owner, { template_id: templateId, participants: participants('2') });
    const d = await simulate(
      ctx,
      owner,
      r.contract_request_id,
      'decline',
      byRole(r, 'client').participant_id,
      'Wrong price',
    );
    expect(d.json().status).toBe('declined');
    expect(byRole(d.json(), 'client').status).toBe('declined');
    expect(byRole(d.json(), 'company').status).toBe('canceled');
    const again = await call(ctx, owner)('POST', `/contracts/requests/${r.contract_request_id}/void`, {
      reason: 'x',
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().detail).toBe("Contract request is in terminal status 'declined'");

    const v = await send(ctx, owner, { template_id: templateId, participants: participants('3') });
    const voided = await call(ctx, owner)('POST', `/contracts/requests/${v.contract_request_id}/void`, {
      reason: 'Sent by mistake',
    });
    expect(voided.json().status).toBe('voided');
    expect(voided.json().participants.every((p: { status: string }) => p.status === 'canceled')).toBe(true);

    const f = await send(ctx, owner, {
      template_id: templateId,
      title: 'FAIL test',
      participants: participants('4'),
    });
    expect(f.status).toBe('failed');
    expect(f.status_reason).toBe('Document could not be processed');
  });

  it("another client's request is 404", async () => {
    const r = await send(ctx, owner, { template_id: templateId, participants: participants('5') });
    for (const [m, u] of [
      ['GET', `/contracts/requests/${r.contract_request_id}`],
      ['GET', `/contracts/requests/${r.contract_request_id}/events`],
      ['GET', `/contracts/templates/${templateId}`],
    ] as const) {
      const res = await call(ctx, other)(m, u);
      expect(res.statusCode).toBe(404);
    }
    const v = await call(ctx, other)('POST', `/contracts/requests/${r.contract_request_id}/void`, {
      reason: 'x',
    });
    expect(v.json().detail).toBe('Contract request not found');
  });
});
