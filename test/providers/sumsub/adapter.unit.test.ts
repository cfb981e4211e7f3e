/** Contract tests of the Sumsub adapter against the Sumsub stand-in (built from Sumsub's documentation). */
import { createHmac } from 'node:crypto';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../../src/platform/upstream';
import type { CreateVerificationInput } from '../../../src/providers/verification/port';
import {
  VerificationProviderError,
  VerificationUnavailableError,
} from '../../../src/providers/verification/port';
import { SumsubVerificationProvider } from '../../../src/providers/verification/sumsub/adapter';
import { SumsubClient } from '../../../src/providers/verification/sumsub/client';
import { STANDIN_KEY_PEOPLE } from '../../kyc/sumsub-fixtures';
import { type SumsubStandin, startSumsubStandin } from '../../standins/sumsub/server';

const LEVELS = {
  basic: 'basic-kyc-level',
  standard: 'standard-kyc-level',
  enhanced: 'enhanced-kyc-level',
  'kyb-basic': 'basic-kyb-level',
  'kyb-standard': 'standard-kyb-level',
};
const ENHANCED = ['liveness', 'face_match', 'nfc', 'poa', 'aml', 'sof_questionnaire'];

let standin: SumsubStandin;
let seq = 0;

const CONSENT = { acceptedAt: new Date('2026-11-29T08:00:00Z'), version: 'sha256:test' };

function adapter(
  overrides: { appToken?: string; secretKey?: string; consent?: boolean; kybFlow?: 'kyb1' | 'kyb2' } = {},
) {
  const client = new SumsubClient(
    {
      apiUrl: standin.url,
      appToken: overrides.appToken ?? 'sbx:standin-app-token',
      secretKey: overrides.secretKey ?? 'standin-secret-key',
      timeoutMs: 2000,
      maxAttempts: 3,
    },
    { metrics: new Registry(), log: pino({ level: 'silent' }), backoffMs: 1, sleep: async () => {} },
  );
  return new SumsubVerificationProvider(client, {
    levels: LEVELS,
    webhookSecret: 'standin-webhook-secret',
    websdkLinkTtlSeconds: 600,
    ...(overrides.kybFlow ? { kybFlow: overrides.kybFlow } : {}),
    ...(overrides.consent
      ? { consent: { text: 'Disclosure', privacyUrl: null, version: 'sha256:test' } }
      : {}),
  });
}

const uuid = () => `0190a1b2-0000-7000-8000-${String(++seq).padStart(12, '0')}`;

function kycInput(subjectId = uuid(), level = 'enhanced'): CreateVerificationInput {
  return {
    subject: { kind: 'kyc', firstName: 'Ann', lastName: 'Lee', email: 'ann@example.com' },
    level,
    checks: ENHANCED,
    verificationId: uuid(),
    subjectId,
  };
}

const applicantOf = (ref: string) => standin.control.applicants.get(ref.split(':')[0]!)!;

beforeAll(async () => {
  standin = await startSumsubStandin({ webhookUrl: null });
});
afterAll(() => standin.close());
beforeEach(() => {
  standin.control.setDown(false);
  standin.control.setDelayMs(0);
});

describe('applicants', () => {
  it('creates the applicant lean at the mapped level (no personal data before consent), and reuses it for the next link', async () => {
    const p = adapter();
    const subjectId = uuid();
    const first = await p.createSession(kycInput(subjectId));
    const a = applicantOf(first.providerRef);
    expect(a.externalUserId).toBe(`svc-kyc-${subjectId}`);
    expect(a.review.levelName).toBe('enhanced-kyc-level');
    expect(a.fixedInfo).toBeUndefined();
    expect(a.email).toBeUndefined();
    const create = standin.control.requests.findLast(
      (r) => r.method === 'POST' && /^\/resources\/applicants\?/.test(r.path),
    )!;
    expect(create.body).toEqual({ externalUserId: `svc-kyc-${subjectId}`, type: 'individual' });
    const second = await p.createSession(kycInput(subjectId));
    expect(second.providerRef.split(':')[0]).toBe(a.id);
    expect(second.providerRef).not.toBe(first.providerRef);
  });

  it('reads the applicant when the create answers 409 (created by an earlier attempt)', async () => {
    const p = adapter();
    const subjectId = uuid();
    const { providerRef } = await p.createSession(kycInput(subjectId));
    standin.control.failNext({ status: 404, count: 1, path: /externalUserId/ });
    const again = await p.createSession(kycInput(subjectId));
    expect(again.providerRef.split(':')[0]).toBe(providerRef.split(':')[0]);
  });

  it('maps an unmapped custom level to the widest level of its kind', () => {
    const p = adapter();
    expect(p.sumsubLevel('kyc', 'Gold-Tier')).toBe('enhanced-kyc-level');
    expect(p.sumsubLevel('kyb', 'partners')).toBe('standard-kyb-level');
    expect(p.sumsubLevel('kyc', 'BASIC')).toBe('basic-kyc-level');
  });

  it('a company applicant is created lean; its companyInfo goes after consent (alpha-2 country sent as alpha-3)', async () => {
    const subject = {
      kind: 'kyb' as const,
      email: 'co@example.com',
      companyName: 'Acme Ltd',
      registrationNumber: '0999',
      country: 'GB',
    };
    const p = adapter();
    const { providerRef } = await p.createSession({
      subject,
      level: 'kyb-standard',
      checks: ['registry', 'key_people', 'aml'],
      verificationId: uuid(),
      subjectId: uuid(),
    });
    const a = applicantOf(providerRef);
    expect(a.type).toBe('company');
    expect(a.fixedInfo).toBeUndefined();
    await p.hostedVerificationUrl(providerRef, {
      level: 'kyb-standard',
      kind: 'kyb',
      subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
    expect(a.fixedInfo).toEqual({
      companyInfo: { companyName: 'Acme Ltd', registrationNumber: '0999', country: 'GBR' },
    });
    expect(a.email).toBe('co@example.com');
    // The same data again is not sent again.
    const before = standin.control.requests.length;
    await p.hostedVerificationUrl(providerRef, {
      level: 'kyb-standard',
      kind: 'kyb',
      subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
    expect(standin.control.requests.slice(before).filter((r) => r.method === 'PATCH')).toEqual([]);
  });

  it('the data goes after consent: names by PATCH fixedInfo, email by PATCH applicants; refused without consent', async () => {
    const p = adapter({ consent: true });
    const input = kycInput();
    const { providerRef } = await p.createSession(input);
    const hand = (consent: typeof CONSENT | null) =>
      p.hostedVerificationUrl(providerRef, {
        level: 'enhanced',
        kind: 'kyc',
        subject: input.subject,
        consent,
        returnUrl: 'https://merchant.example/back',
      });
    const before = standin.control.requests.length;
    await expect(hand(null)).rejects.toBeInstanceOf(VerificationProviderError);
    expect(standin.control.requests.length).toBe(before);
    expect(await hand(CONSENT)).toMatch(/\/websdk\/p\//);
    const sent = standin.control.requests.slice(before);
    expect(sent.filter((r) => r.method === 'PATCH').map((r) => [r.path, r.body])).toEqual([
      ['/resources/applicants', { id: applicantOf(providerRef).id, email: 'ann@example.com' }],
      [
        `/resources/applicants/${applicantOf(providerRef).id}/fixedInfo`,
        { firstName: 'Ann', lastName: 'Lee' },
      ],
    ]);
    // The WebSDK link is asked for only after the data.
    expect(sent.at(-1)!.path).toBe('/resources/sdkIntegrations/levels/-/websdkLink');
    expect(applicantOf(providerRef).fixedInfo).toMatchObject({ firstName: 'Ann', lastName: 'Lee' });
  });

  it('KYB 1.0: companyInfo in info is completed, never overwritten (the method unsets what is left out)', async () => {
    const p = adapter({ kybFlow: 'kyb1' });
    const subject = {
      kind: 'kyb' as const,
      email: 'k1@example.com',
      companyName: 'Beta Ltd',
      registrationNumber: '0777',
      country: 'DE',
    };
    const { providerRef } = await p.createSession({
      subject,
      level: 'kyb-standard',
      checks: ['registry'],
      verificationId: uuid(),
      subjectId: uuid(),
    });
    const a = applicantOf(providerRef);
    a.info = { companyInfo: { companyName: 'Beta Limited (registry)', legalAddress: 'Berlin' } };
    await p.hostedVerificationUrl(providerRef, {
      level: 'kyb-standard',
      kind: 'kyb',
      subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
    expect(a.info.companyInfo).toEqual({
      companyName: 'Beta Limited (registry)',
      legalAddress: 'Berlin',
      registrationNumber: '0777',
      country: 'DEU',
    });
  });
});

describe('review fixes: Sumsub data is never overwritten', () => {
  const hand = (p: SumsubVerificationProvider, providerRef: string, subject = kycInput().subject) =>
    p.hostedVerificationUrl(providerRef, {
      level: 'enhanced',
      kind: 'kyc',
      subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
  const patchesAfter = (before: number) =>
    standin.control.requests
      .slice(before)
      .filter((r) => r.method === 'PATCH')
      .map((r) => [r.path, r.body]);

  it('fills only blanks: a name and an email Sumsub already holds are not sent (nor on a second click)', async () => {
    const p = adapter({ consent: true });
    const { providerRef } = await p.createSession(kycInput());
    const a = applicantOf(providerRef);
    a.fixedInfo = { firstName: 'Anna' };
    a.email = 'anna@elsewhere.example';
    const before = standin.control.requests.length;
    await hand(p, providerRef);
    expect(patchesAfter(before)).toEqual([[`/resources/applicants/${a.id}/fixedInfo`, { lastName: 'Lee' }]]);
    expect(a.fixedInfo).toEqual({ firstName: 'Anna', lastName: 'Lee' });
    expect(a.email).toBe('anna@elsewhere.example');
    const again = standin.control.requests.length;
    await hand(p, providerRef);
    expect(patchesAfter(again)).toEqual([]);
  });

  it('KYB 2.0: only the company fields Sumsub lacks are sent', async () => {
    const p = adapter({ kybFlow: 'kyb2' });
    const subject = {
      kind: 'kyb' as const,
      email: 'c2@example.com',
      companyName: 'Gamma Ltd',
      registrationNumber: '0555',
      country: 'FR',
    };
    const { providerRef } = await p.createSession({
      subject,
      level: 'kyb-standard',
      checks: ['registry'],
      verificationId: uuid(),
      subjectId: uuid(),
    });
    const a = applicantOf(providerRef);
    a.fixedInfo = { companyInfo: { companyName: 'Gamma SAS (registry)' } };
    const before = standin.control.requests.length;
    await p.hostedVerificationUrl(providerRef, {
      level: 'kyb-standard',
      kind: 'kyb',
      subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
    expect(patchesAfter(before)).toContainEqual([
      `/resources/applicants/${a.id}/fixedInfo/companyInfo`,
      { registrationNumber: '0555', country: 'FRA' },
    ]);
    expect(a.fixedInfo.companyInfo).toMatchObject({ companyName: 'Gamma SAS (registry)' });
  });

  it.each([
    ['pending', undefined],
    ['queued', undefined],
    ['onHold', undefined],
    ['prechecked', undefined],
    ['completed', { reviewAnswer: 'GREEN' }],
    ['completed', { reviewAnswer: 'RED', reviewRejectType: 'FINAL' }],
  ] as const)('no data step while %s %o (a WebSDK link all the same)', async (status, result) => {
    const p = adapter({ consent: true });
    const { providerRef } = await p.createSession(kycInput());
    const a = applicantOf(providerRef);
    a.review.reviewStatus = status;
    if (result) a.review.reviewResult = { ...result } as never;
    const before = standin.control.requests.length;
    expect(await hand(p, providerRef)).toMatch(/^https?:\/\//);
    expect(patchesAfter(before)).toEqual([]);
  });

  it('a PATCH refused because the check completed meanwhile: the link all the same; any other refusal is an error', async () => {
    const p = adapter({ consent: true });
    const { providerRef } = await p.createSession(kycInput());
    const a = applicantOf(providerRef);
    a.email = 'kept@example.com';
    standin.control.failNext({
      status: 409,
      count: 1,
      path: /\/fixedInfo$/,
      meanwhile: () => {
        a.review.reviewStatus = 'completed';
        a.review.reviewResult = { reviewAnswer: 'GREEN' } as never;
      },
    });
    expect(await hand(p, providerRef)).toMatch(/^https?:\/\//);
    const other = await p.createSession(kycInput());
    applicantOf(other.providerRef).email = 'kept@example.com';
    standin.control.failNext({ status: 400, count: 1, path: /\/fixedInfo$/ });
    await expect(hand(p, other.providerRef)).rejects.toBeInstanceOf(VerificationProviderError);
  });

  it('a RETRY rejection takes the missing data (the person resubmits)', async () => {
    const p = adapter({ consent: true });
    const { providerRef } = await p.createSession(kycInput());
    const a = applicantOf(providerRef);
    a.review.reviewStatus = 'completed';
    a.review.reviewResult = { reviewAnswer: 'RED', reviewRejectType: 'RETRY' } as never;
    const before = standin.control.requests.length;
    await hand(p, providerRef);
    expect(patchesAfter(before).length).toBe(2);
  });

  it('a deactivated applicant is a "withdrawn" refusal (the link can never work again)', async () => {
    const p = adapter({ consent: true });
    const { providerRef } = await p.createSession(kycInput());
    await standin.control.deactivate(applicantOf(providerRef).id);
    const err = await hand(p, providerRef).catch((e) => e);
    expect(err).toBeInstanceOf(VerificationProviderError);
    expect(err.code).toBe('withdrawn');
  });
});

describe("review fixes: which applicant is the person's", () => {
  it('a taken externalUserId whose profile cannot be read (404) is skipped: the next number is created', async () => {
    const p = adapter();
    const subjectId = uuid();
    const first = await p.createSession(kycInput(subjectId));
    await standin.control.deactivate(applicantOf(first.providerRef).id);
    standin.control.deactivatedFoundByExternalId = false;
    try {
      const next = await p.createSession(kycInput(subjectId));
      expect(applicantOf(next.providerRef).externalUserId).toBe(`svc-kyc-${subjectId}-2`);
      expect(applicantOf(next.providerRef).deleted).not.toBe(true);
    } finally {
      standin.control.deactivatedFoundByExternalId = true;
    }
  });

  it("a reactivated old profile: the latest link's applicant is kept; without it the newest active one, with a warning", async () => {
    const warnings: unknown[] = [];
    const client = new SumsubClient(
      {
        apiUrl: standin.url,
        appToken: 'sbx:standin-app-token',
        secretKey: 'standin-secret-key',
        timeoutMs: 2000,
        maxAttempts: 3,
      },
      { metrics: new Registry(), log: pino({ level: 'silent' }), backoffMs: 1, sleep: async () => {} },
    );
    const p = new SumsubVerificationProvider(
      client,
      { levels: LEVELS, webhookSecret: 'standin-webhook-secret', websdkLinkTtlSeconds: 600 },
      undefined,
      { warn: (obj) => warnings.push(obj) },
    );
    const subjectId = uuid();
    const first = await p.createSession(kycInput(subjectId));
    const old = applicantOf(first.providerRef);
    await standin.control.deactivate(old.id);
    const second = await p.createSession(kycInput(subjectId));
    const current = applicantOf(second.providerRef);
    expect(current.externalUserId).toBe(`svc-kyc-${subjectId}-2`);
    standin.control.reactivate(old.id);
    const known = await p.createSession({ ...kycInput(subjectId), previousProviderRef: second.providerRef });
    expect(known.providerRef.split(':')[0]).toBe(current.id);
    const walked = await p.createSession(kycInput(subjectId));
    expect(walked.providerRef.split(':')[0]).toBe(current.id);
    expect(warnings).toEqual([expect.objectContaining({ applicantIds: [old.id, current.id] })]);
  });
});

describe('failures', () => {
  it('a bad signature or token is a refusal (VerificationProviderError), not an outage', async () => {
    await expect(adapter({ secretKey: 'wrong' }).createSession(kycInput())).rejects.toBeInstanceOf(
      VerificationProviderError,
    );
    await expect(adapter({ appToken: 'sbx:other' }).createSession(kycInput())).rejects.toBeInstanceOf(
      VerificationProviderError,
    );
  });

  it("5xx is retried, then the port's unavailable error (the UpstreamError its cause); repeated outages open the breaker (nothing sent)", async () => {
    const p = adapter();
    standin.control.failNext({ status: 502, count: 1 });
    await expect(p.createSession(kycInput())).resolves.toHaveProperty('providerRef');
    standin.control.setDown(true);
    await expect(p.createSession(kycInput())).rejects.toMatchObject({ kind: 'server' });
    for (let i = 0; i < 4; i++) await p.createSession(kycInput()).catch(() => {});
    const before = standin.control.requests.length;
    const err = await p.createSession(kycInput()).catch((e) => e);
    expect(err).toBeInstanceOf(VerificationUnavailableError);
    expect(err.kind).toBe('circuit_open');
    expect(err.cause).toBeInstanceOf(UpstreamError);
    expect(standin.control.requests.length).toBe(before);
  });

  it('429 with Retry-After is waited for and retried', async () => {
    standin.control.failNext({ status: 429, count: 1, retryAfter: '0' });
    await expect(adapter().createSession(kycInput())).resolves.toHaveProperty('providerRef');
  });

  it('a deadline: a slow Sumsub is a timeout', async () => {
    const p = new SumsubVerificationProvider(
      new SumsubClient(
        {
          apiUrl: standin.url,
          appToken: 'sbx:standin-app-token',
          secretKey: 'standin-secret-key',
          timeoutMs: 100,
          maxAttempts: 1,
        },
        { metrics: new Registry(), log: pino({ level: 'silent' }) },
      ),
      { levels: LEVELS, webhookSecret: 'x', websdkLinkTtlSeconds: 600 },
    );
    standin.control.setDelayMs(400);
    await expect(p.createSession(kycInput())).rejects.toMatchObject({ kind: 'timeout' });
  });
});

describe('results', () => {
  it('hands out a WebSDK link and maps an approved applicant field by field', async () => {
    const p = adapter();
    const { providerRef } = await p.createSession(kycInput());
    const url = await p.hostedVerificationUrl(providerRef, {
      level: 'enhanced',
      kind: 'kyc',
      subject: kycInput().subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
    expect(url).toMatch(/\/websdk\/p\//);
    // Nothing submitted yet: no result (an unused link leaves no record).
    expect(await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED })).toBeNull();
    await standin.control.decide(applicantOf(providerRef).id, 'review');
    const pending = await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED });
    expect(pending).toMatchObject({ status: 'in_review', decisionAt: null, dataTrusted: false });
    await standin.control.decide(applicantOf(providerRef).id, 'approve');
    const r = (await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED }))!;
    expect(r.status).toBe('approved');
    expect(r.dataTrusted).toBe(true);
    expect(r.decisionAt).toBeInstanceOf(Date);
    expect(r.revision).toBeGreaterThan(pending!.revision);
    expect(r.identity).toMatchObject({
      firstName: 'Ann',
      lastName: 'Lee',
      fullName: 'Ann Lee',
      dateOfBirth: '1990-04-12',
      nationality: 'GBR',
      documentType: 'passport',
      documentIssuingCountry: 'GBR',
      documentExpiry: '2031-06-30',
      gender: 'female',
    });
    expect(r.identity!.documentNumber).toMatch(/^P\d+/);
    expect(r.checks.liveness).toEqual({ status: 'passed', score: null });
    expect(r.checks.faceMatch).toEqual({ status: 'passed', score: null });
    expect(r.checks.nfc).toBeUndefined();
    expect(r.checks.poa).toMatchObject({
      status: 'approved',
      details: { city: 'London', postal_code: 'NW1 6XE' },
    });
    expect(r.checks.aml).toEqual({ status: 'clear', totalHits: 0, hits: [] });
    expect(r.sofQuestionnaire).toMatchObject({ answers: { source: 'employment_income' } });
    expect((r.sofQuestionnaire!.files as unknown[]).length).toBe(1);
    expect(r.documents.map((d) => d.file_role)).toEqual(['passport', 'selfie', 'proof_of_address']);
    expect(r.company).toBeNull();
  });

  it('reports only the checks the level asked for', async () => {
    const p = adapter();
    const { providerRef } = await p.createSession(kycInput(uuid(), 'basic'));
    await standin.control.decide(applicantOf(providerRef).id, 'approve');
    const r = (await p.fetchResult(providerRef, { kind: 'kyc', checks: ['liveness'] }))!;
    expect(Object.keys(r.checks)).toEqual(['liveness']);
    expect(r.sofQuestionnaire).toBeNull();
  });

  it('RETRY rejection, resubmission to approval; FINAL rejection; leave in review; AML labels', async () => {
    const p = adapter();
    const { providerRef } = await p.createSession(kycInput());
    const id = applicantOf(providerRef).id;
    await standin.control.decide(id, 'reject_retry', { aml: true });
    const declined = (await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED }))!;
    expect(declined).toMatchObject({ status: 'declined', dataTrusted: false });
    expect(declined.checks.aml).toMatchObject({ status: 'potential_match', totalHits: 2 });
    await standin.control.decide(id, 'review');
    const review = (await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED }))!;
    expect(review.status).toBe('in_review');
    expect(review.revision).toBeGreaterThan(declined.revision);
    await standin.control.decide(id, 'approve');
    expect((await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED }))!.status).toBe('approved');

    const other = await p.createSession(kycInput());
    await standin.control.decide(applicantOf(other.providerRef).id, 'reject_final');
    expect((await p.fetchResult(other.providerRef))!.status).toBe('declined');
  });

  it('streams document images and questionnaire files from Sumsub', async () => {
    const p = adapter();
    const { providerRef } = await p.createSession(kycInput());
    await standin.control.decide(applicantOf(providerRef).id, 'approve');
    const doc = await p.fetchDocument(providerRef, 'passport');
    expect(doc).toMatchObject({ fileName: 'passport.png', contentType: 'image/png' });
    expect(doc!.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(await p.fetchDocument(providerRef, 'nope')).toBeNull();
    const r = (await p.fetchResult(providerRef, { kind: 'kyc', checks: ENHANCED }))!;
    const qfile = (r.sofQuestionnaire!.files as { qfile_id: string }[])[0]!.qfile_id;
    const f = await p.fetchQuestionnaireFile(providerRef, qfile);
    expect(f!.contentType).toBe('application/pdf');
    expect(f!.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(await p.fetchQuestionnaireFile(providerRef, '999999')).toBeNull();
  });

  it('maps a company applicant: company fields and key people from its beneficiaries, no identity', async () => {
    const p = adapter();
    const subject = {
      kind: 'kyb' as const,
      email: 'co@example.com',
      companyName: 'Acme Ltd',
      registrationNumber: '0999',
      country: 'GBR',
    };
    const { providerRef } = await p.createSession({
      subject,
      level: 'kyb-standard',
      checks: ['registry', 'key_people', 'aml'],
      verificationId: uuid(),
      subjectId: uuid(),
    });
    await p.hostedVerificationUrl(providerRef, {
      level: 'kyb-standard',
      kind: 'kyb',
      subject,
      consent: CONSENT,
      returnUrl: 'https://merchant.example/back',
    });
    await standin.control.decide(applicantOf(providerRef).id, 'approve');
    const r = (await p.fetchResult(providerRef, { kind: 'kyb', checks: ['registry', 'key_people', 'aml'] }))!;
    expect(r.identity).toBeNull();
    expect(r.company).toMatchObject({
      companyName: 'Acme Ltd',
      registrationNumber: '0999',
      registrationCountry: 'GBR',
      incorporationDate: '2015-03-02',
      registryStatus: 'verified',
    });
    expect(r.company!.keyPeople).toEqual(STANDIN_KEY_PEOPLE);
  });
});

describe('webhooks', () => {
  const body = JSON.stringify({
    applicantId: 'a'.repeat(24),
    type: 'applicantReviewed',
    reviewStatus: 'completed',
    createdAtMs: '2026-01-15 10:00:00.123',
  });
  const sign = (alg: string, b = body, secret = 'standin-webhook-secret') =>
    createHmac(alg, secret).update(b).digest('hex');

  it('accepts the documented digest (SHA256 default, SHA512) and nothing else', () => {
    const p = adapter();
    const n = p.verifyNotification(body, {
      'x-payload-digest': sign('sha256'),
      'x-payload-digest-alg': 'HMAC_SHA256_HEX',
    });
    expect(n).toMatchObject({ providerRef: 'a'.repeat(24), status: 'completed', scope: 'applicant' });
    expect(n!.occurredAt.toISOString()).toBe('2026-01-15T10:00:00.123Z');
    expect(p.verifyNotification(body, { 'x-payload-digest': sign('sha256') })).not.toBeNull();
    expect(
      p.verifyNotification(body, {
        'x-payload-digest': sign('sha512'),
        'x-payload-digest-alg': 'HMAC_SHA512_HEX',
      }),
    ).not.toBeNull();
    expect(
      p.verifyNotification(body, {
        'x-payload-digest': sign('sha1'),
        'x-payload-digest-alg': 'HMAC_SHA1_HEX',
      }),
    ).toBeNull();
    expect(p.verifyNotification(body, { 'x-payload-digest': sign('sha256', body, 'other') })).toBeNull();
    expect(p.verifyNotification(`${body} `, { 'x-payload-digest': sign('sha256') })).toBeNull();
    expect(p.verifyNotification(body, {})).toBeNull();
  });
});
