/**
 * The verification record: shape and null rules, visibility groups read at request time,
 * encryption at rest, detail/history ordering, 404 vs empty history, cross-client, path
 * validation, document and questionnaire-file downloads, KYB detail.
 */
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationRecords } from '../../src/db/schema/index';
import { KycMessages } from '../../src/modules/kyc/kyc.messages';
import { M } from '../../src/shared/messages';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { staffHeaders } from '../org/fixtures';
import { ALL_GROUPS, api, createKycWorld, createLink, type KycWorld, setGroups, simulate } from './fixtures';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(() => ctx?.close());

const IDENTITY = [
  'first_name',
  'last_name',
  'full_name',
  'date_of_birth',
  'nationality',
  'document_type',
  'document_issuing_country',
  'document_expiry',
  'gender',
];
const CHECKS = [
  'liveness_status',
  'liveness_score',
  'face_match_status',
  'face_match_score',
  'nfc_status',
  'poa_status',
  'aml_status',
  'aml_total_hits',
];
const EXTENDED = ['document_number', 'sof_questionnaire', 'poa', 'aml_hits', 'documents'];
const COMPANY = [
  'company_name',
  'registration_number',
  'registration_country',
  'company_type',
  'incorporation_date',
  'registry_status',
  'business_registry_details',
  'business_key_people',
];

const detail = (w: KycWorld, id = w.userId) => api(ctx, 'GET', `/kyc/detail/${id}`, w.caller.headers);
const history = (w: KycWorld, id = w.userId) =>
  api(ctx, 'GET', `/kyc/detail/${id}/history`, w.caller.headers);

describe('record shape', () => {
  it('an enhanced approval without visibility groups: identity and checks set, extended groups null, KYB null', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w, { level: 'enhanced' });
    const sim = await simulate(ctx, w, link.verification_id, 'approved', {
      liveness: true,
      face_match: true,
      nfc: true,
      poa: true,
      aml_hits: 2,
    });
    expect(sim.statusCode, sim.body).toBe(200);
    const res = await detail(w);
    expect(res.statusCode).toBe(200);
    const r = res.json();
    expect(r).toEqual(sim.json());
    expect(Object.keys(r).sort()).toEqual(
      [
        'verification_id',
        'status',
        'kind',
        'data_trusted',
        'fetched_at',
        'decision_at',
        ...IDENTITY,
        ...CHECKS,
        ...EXTENDED,
        ...COMPANY,
      ].sort(),
    );
    expect(r).toMatchObject({
      verification_id: link.verification_id,
      status: 'approved',
      kind: 'kyc',
      data_trusted: true,
      fetched_at: ctx.clock.now().toISOString(),
      decision_at: ctx.clock.now().toISOString(),
      first_name: 'Jane',
      last_name: 'Roe',
      full_name: 'Jane Roe',
      date_of_birth: '1990-04-12',
      document_type: 'passport',
      liveness_status: 'passed',
      face_match_status: 'passed',
      nfc_status: 'passed',
      poa_status: 'approved',
      aml_status: 'potential_match',
      aml_total_hits: 2,
    });
    expect(typeof r.liveness_score).toBe('number');
    for (const f of [...EXTENDED, ...COMPANY]) expect(r[f], f).toBeNull();
  });

  it('check fields are null when the check did not run; expired has no data', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w, { level: 'basic' });
    const r = (await simulate(ctx, w, link.verification_id, 'declined')).json();
    expect(r.status).toBe('declined');
    expect(r.data_trusted).toBe(false);
    expect(r.liveness_status).toBe('failed');
    for (const f of CHECKS.filter((c) => !c.startsWith('liveness'))) expect(r[f], f).toBeNull();
    ctx.clock.advanceSeconds(60);
    const link2 = await createLink(ctx, w, { level: 'enhanced' });
    const e = (await simulate(ctx, w, link2.verification_id, 'expired')).json();
    expect(e.status).toBe('expired');
    expect(e.decision_at).toBeNull();
    for (const f of [...IDENTITY, ...CHECKS]) expect(e[f], f).toBeNull();
  });

  it('visibility groups: granting later shows them, revoking hides them (read at request time)', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w, { level: 'enhanced' });
    await simulate(ctx, w, link.verification_id, 'approved', { liveness: true, poa: true, aml_hits: 1 });
    for (const f of EXTENDED) expect((await detail(w)).json()[f], f).toBeNull();
    const staff = await staffHeaders(ctx);
    const grant = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/admin/clients/${w.caller.clientId}/visibility-groups`,
      headers: staff.headers,
      payload: { groups: ALL_GROUPS },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const r = (await detail(w)).json();
    expect(r.document_number).toMatch(/^P\d{8}$/);
    expect(r.sof_questionnaire).toMatchObject({ source_of_funds: 'employment_income' });
    expect(r.poa).toMatchObject({ city: 'London', country: 'GB' });
    expect(r.aml_hits).toHaveLength(1);
    expect(r.aml_hits[0]).toMatchObject({ name: 'Jane Roe' });
    expect(r.documents.map((d: { file_role: string }) => d.file_role)).toEqual([
      'passport',
      'selfie',
      'proof_of_address',
    ]);
    // history shows the same
    expect((await history(w)).json().records[0]).toEqual(r);
    // one group at a time
    await setGroups(ctx, w.caller.clientId, ['poa']);
    const some = (await detail(w)).json();
    expect(some.poa).not.toBeNull();
    for (const f of EXTENDED.filter((g) => g !== 'poa')) expect(some[f], f).toBeNull();
    await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/admin/clients/${w.caller.clientId}/visibility-groups`,
      headers: staff.headers,
      payload: { groups: [] },
    });
    for (const f of EXTENDED) expect((await detail(w)).json()[f], f).toBeNull();
  });

  it('sensitive fields are encrypted at rest', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w, { level: 'enhanced' });
    await simulate(ctx, w, link.verification_id, 'approved', { poa: true, aml_hits: 1 });
    const [row] = await ctx.db
      .select()
      .from(verificationRecords)
      .where(eq(verificationRecords.sessionId, link.verification_id));
    for (const v of [
      row!.documentNumberEnc,
      row!.dateOfBirthEnc,
      row!.sofQuestionnaireEnc,
      row!.poaEnc,
      row!.amlHitsEnc,
    ]) {
      expect(v).toMatch(/^v1\./);
      expect(v).not.toContain('1990');
      expect(v).not.toContain('London');
    }
  });

  it('KYB detail: company fields set, identity null; KYB records never show on KYC detail', async () => {
    const w = await createKycWorld(ctx);
    await setGroups(ctx, w.caller.clientId, ['documents', 'aml_hits']);
    const link = await createLink(ctx, w, {}, 'kyb');
    const sim = await simulate(ctx, w, link.verification_id, 'approved', { aml_hits: 0 });
    expect(sim.statusCode, sim.body).toBe(200);
    const res = await api(ctx, 'GET', `/kyb/detail/${w.businessId}`, w.caller.headers);
    expect(res.statusCode).toBe(200);
    const r = res.json();
    expect(r).toMatchObject({
      kind: 'kyb',
      status: 'approved',
      company_name: 'Roe Trading Ltd',
      registration_number: '09876543',
      registration_country: 'GB',
      company_type: 'private_limited_company',
      registry_status: 'active',
      aml_status: 'clear',
      aml_total_hits: 0,
      aml_hits: [],
    });
    expect(r.business_registry_details).toMatchObject({ registry: 'Sandbox Companies Registry' });
    expect(r.business_key_people).toHaveLength(2);
    expect(r.documents.map((d: { file_role: string }) => d.file_role)).toContain(
      'certificate_of_incorporation',
    );
    for (const f of IDENTITY) expect(r[f], f).toBeNull();
    expect(
      (await api(ctx, 'GET', `/kyb/businesses/${w.businessId}`, w.caller.headers)).json().kyb_status,
    ).toBe('approved');
    expect((await detail(w)).statusCode).toBe(404);
    const nf = await api(ctx, 'GET', `/kyb/detail/${randomUUID()}`, w.caller.headers);
    expect(nf.statusCode).toBe(404);
  });
});

describe('detail and history', () => {
  it('404 vs empty history; cross-client; 422 on malformed ids; developer 403', async () => {
    const w = await createKycWorld(ctx);
    const none = await detail(w);
    expect(none.statusCode).toBe(404);
    expect(none.json().detail).toBe(KycMessages.verificationRecordNotFound);
    expect((await history(w)).json()).toEqual({ records: [] });
    expect((await history(w, randomUUID())).json()).toEqual({ records: [] });

    const link = await createLink(ctx, w);
    await simulate(ctx, w, link.verification_id, 'approved');
    const other = await createKycWorld(ctx);
    expect((await detail(other, w.userId)).statusCode).toBe(404);
    expect((await history(other, w.userId)).json()).toEqual({ records: [] });

    for (const url of ['/kyc/detail/abc', '/kyc/detail/abc/history', '/kyc/detail/abc/documents/passport']) {
      const res = await api(ctx, 'GET', url, w.caller.headers);
      expect(res.statusCode, url).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['path', 'user_id']);
    }
    const kyb = await api(ctx, 'GET', '/kyb/detail/abc', w.caller.headers);
    expect(kyb.json().detail[0].loc).toEqual(['path', 'business_id']);

    const dev = await createTestClient(ctx, { role: 'developer', clientId: w.caller.clientId });
    const denied = await api(ctx, 'GET', `/kyc/detail/${w.userId}`, dev.headers);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe(M.insufficientPermissions);
    const ops = await createTestClient(ctx, { role: 'operations', clientId: w.caller.clientId });
    expect((await api(ctx, 'GET', `/kyc/detail/${w.userId}`, ops.headers)).statusCode).toBe(200);
  });

  it('orders by decision_at desc with nulls last, then fetched_at desc', async () => {
    const w = await createKycWorld(ctx);
    const mk = async (outcome: string) => {
      const l = await createLink(ctx, w);
      await simulate(ctx, w, l.verification_id, outcome);
      ctx.clock.advanceSeconds(60);
      return l.verification_id;
    };
    const a = await mk('approved'); // decided t0
    const b = await mk('in_review'); // no decision, fetched t1
    const c = await mk('declined'); // decided t2
    const d = await mk('expired'); // no decision, fetched t3
    const e = await mk('approved'); // decided t4
    const recs = (await history(w)).json().records as {
      verification_id: string;
      decision_at: string | null;
    }[];
    expect(recs.map((r) => r.verification_id)).toEqual([e, c, a, d, b]);
    expect((await detail(w)).json().verification_id).toBe(e);
    // an in-review record reported later than every decision is still last in the spec order,
    // while the user's status follows the provider's latest report
    ctx.clock.advanceSeconds(60);
    const f = await mk('in_review');
    expect((await detail(w)).json().verification_id).toBe(e);
    expect((await history(w)).json().records.at(-1).verification_id).toBe(b);
    expect(
      (await history(w)).json().records.map((r: { verification_id: string }) => r.verification_id),
    ).toContain(f);
    expect((await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json().kyc_status).toBe(
      'pending',
    );
  });
});

describe('downloads', () => {
  it('downloads listed document roles with real bytes, type and disposition; 404 otherwise', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w, { level: 'enhanced' });
    await simulate(ctx, w, link.verification_id, 'approved', { liveness: true, poa: true });
    const url = (role: string) => `/kyc/detail/${w.userId}/documents/${role}`;
    // listed but the documents group is not granted
    expect((await api(ctx, 'GET', url('passport'), w.caller.headers)).statusCode).toBe(404);
    await setGroups(ctx, w.caller.clientId, ['documents']);
    const png = await api(ctx, 'GET', url('passport'), w.caller.headers);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['content-disposition']).toBe('attachment; filename="passport.png"');
    expect(png.rawPayload.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const pdf = await api(ctx, 'GET', url('proof_of_address'), w.caller.headers);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe('attachment; filename="proof-of-address.pdf"');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.rawPayload.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
    // a role that exists elsewhere but is not listed on this record
    const nf = await api(ctx, 'GET', url('certificate_of_incorporation'), w.caller.headers);
    expect(nf.statusCode).toBe(404);
    expect(nf.json().detail).toBe(KycMessages.documentNotFound);
    // another client's user
    const other = await createKycWorld(ctx);
    await setGroups(ctx, other.caller.clientId, ['documents']);
    expect((await api(ctx, 'GET', url('passport'), other.caller.headers)).statusCode).toBe(404);
  });

  it('downloads questionnaire files with the sof_questionnaire group only', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w, { level: 'enhanced' });
    await simulate(ctx, w, link.verification_id, 'approved');
    await setGroups(ctx, w.caller.clientId, ['sof_questionnaire']);
    const q = (await detail(w)).json().sof_questionnaire;
    const qid = q.files[0].qfile_id as string;
    const ok = await api(ctx, 'GET', `/kyc/detail/${w.userId}/questionnaire-files/${qid}`, w.caller.headers);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('application/pdf');
    expect(ok.headers['content-disposition']).toBe('attachment; filename="payslip.pdf"');
    expect(ok.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(
      (await api(ctx, 'GET', `/kyc/detail/${w.userId}/questionnaire-files/qf_nope`, w.caller.headers))
        .statusCode,
    ).toBe(404);
    await setGroups(ctx, w.caller.clientId, []);
    expect(
      (await api(ctx, 'GET', `/kyc/detail/${w.userId}/questionnaire-files/${qid}`, w.caller.headers))
        .statusCode,
    ).toBe(404);
  });
});
