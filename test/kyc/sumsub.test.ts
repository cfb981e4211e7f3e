/**
 * Production mode with the Sumsub adapter against the stand-in, through the service's own routes:
 * links, the hosted page's hand-over to the WebSDK, signed webhooks (duplicates, out of order,
 * never sent), the record and the subject's status, files, resubmission, KYB, and Sumsub down.
 */
import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activityLogs,
  clients,
  verificationConsents,
  verificationRecords,
  verificationSessions,
} from '../../src/db/schema/index';
import { KycMessages } from '../../src/modules/kyc/kyc.messages';
import {
  recheckApprovedVerifications,
  reconcileVerifications,
} from '../../src/modules/kyc/reconcile.service';
import { sumsubSettings } from '../../src/providers/verification/sumsub/config';
import { toVerificationResult } from '../../src/providers/verification/sumsub/mapping';
import type { TestContext } from '../helpers/app';
import { eventsOf } from '../org/fixtures';
import type { SumsubStandin } from '../standins/sumsub/server';
import { completeReview } from '../standins/sumsub/submission';
import { webhookPayload } from '../standins/sumsub/webhooks';
import { ALL_GROUPS, api, createKycWorld, createLink, type KycWorld, setGroups, tokenOf } from './fixtures';
import { STANDIN_KEY_PEOPLE, startSumsubDeployment } from './sumsub-fixtures';

let ctx: TestContext;
let standin: SumsubStandin;
beforeAll(async () => {
  ({ ctx, standin } = await startSumsubDeployment());
});
afterAll(async () => {
  await ctx?.close();
  await standin?.close();
});

const applicantOfUser = (userId: string) => standin.control.byExternalUserId(`svc-kyc-${userId}`)!;
const openPage = (url: string) => ctx.app.inject({ method: 'GET', url: `/verify/${tokenOf(url)}` });
const postPage = (url: string, form: Record<string, string>) =>
  ctx.app.inject({
    method: 'POST',
    url: `/verify/${tokenOf(url)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
/** The person opens our link, accepts the disclosure and is handed over to the WebSDK (303). */
async function handOver(url: string) {
  const page = await openPage(url);
  expect(page.statusCode).toBe(200);
  const version = /name="consent_version" value="([^"]+)"/.exec(page.body)![1]!;
  return postPage(url, { consent: 'accept', consent_version: version });
}
const sessionRow = async (id: string) =>
  (await ctx.db.select().from(verificationSessions).where(eq(verificationSessions.id, id)))[0]!;
const detail = (w: KycWorld) => api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers);
const kycStatus = async (w: KycWorld) =>
  (await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json().kyc_status;

describe('KYC through Sumsub', () => {
  let w: KycWorld;
  beforeAll(async () => {
    w = await createKycWorld(ctx, { productionAccess: true });
  });

  it('a link creates the applicant lean: no personal data reaches Sumsub before the person consents on our page', async () => {
    const link = await createLink(ctx, w, { level: 'enhanced' });
    const a = applicantOfUser(w.userId);
    expect(a.review.levelName).toBe('enhanced-kyc-level');
    expect(a.fixedInfo).toBeUndefined();
    expect(a.email).toBeUndefined();
    const create = standin.control.requests.findLast(
      (r) => r.method === 'POST' && r.path.startsWith('/resources/applicants?'),
    )!;
    expect(create.body).toEqual({ externalUserId: `svc-kyc-${w.userId}`, type: 'individual' });
    // Opening the link shows the disclosure and calls nobody.
    const before = standin.control.requests.length;
    const page = await openPage(link.verification_url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Before you start');
    expect(page.body).toContain('uses Sumsub, an identity verification provider');
    expect(page.body).toContain('name="consent" id="consent-accept"');
    // Continue without ticking the box: refused, still nothing sent.
    const version = ctx.deps.providers.verification.consent!.version;
    const refused = await postPage(link.verification_url, { consent_version: version });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('Tick the box');
    // A page shown with an older text: the person reads the current one first.
    expect(
      (await postPage(link.verification_url, { consent: 'accept', consent_version: 'sha256:old' }))
        .statusCode,
    ).toBe(409);
    expect(standin.control.requests.length).toBe(before);
    expect((await sessionRow(link.verification_id)).consentAcceptedAt).toBeNull();
    // Accepted: recorded with its time and the text's version, then the data, then the WebSDK.
    const at = ctx.clock.now();
    const res = await postPage(link.verification_url, { consent: 'accept', consent_version: version });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^${standin.url}/websdk/p/`));
    const row = await sessionRow(link.verification_id);
    expect(row.consentAcceptedAt?.getTime()).toBe(at.getTime());
    expect(row.consentVersion).toBe(version);
    expect(version).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(a.fixedInfo).toEqual({ firstName: 'Jane', lastName: 'Roe' });
    expect(a.email).toBe(w.email);
    // (The reads in between are the re-reads of Sumsub's applicantPersonalInfoChanged webhooks.)
    const after = standin.control.requests
      .slice(before)
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path.split('?')[0]}`);
    expect(after).toEqual([
      'PATCH /resources/applicants',
      `PATCH /resources/applicants/${a.id}/fixedInfo`,
      'POST /resources/sdkIntegrations/levels/-/websdkLink',
    ]);
    expect(await kycStatus(w)).toBe('pending');
    // Coming back (to resubmit): the acceptance is shown, a click hands over again, nothing re-sent.
    const again = await openPage(link.verification_url);
    expect(again.body).toContain('You accepted this on');
    const n = standin.control.requests.length;
    expect((await handOver(link.verification_url)).statusCode).toBe(303);
    expect(standin.control.requests.slice(n).filter((r) => r.method === 'PATCH')).toEqual([]);
    expect((await sessionRow(link.verification_id)).consentAcceptedAt?.getTime()).toBe(at.getTime());
  });

  it('the decision arrives by signed webhook; the record is read from the applicant; groups only when granted', async () => {
    await standin.control.decide(applicantOfUser(w.userId).id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    const r = (await detail(w)).json();
    expect(r).toMatchObject({
      status: 'approved',
      data_trusted: true,
      first_name: 'Jane',
      last_name: 'Roe',
      document_type: 'passport',
      liveness_status: 'passed',
      liveness_score: null,
      poa_status: 'approved',
      aml_status: 'clear',
      aml_total_hits: 0,
      nfc_status: null,
      document_number: null,
      documents: null,
      sof_questionnaire: null,
      company_name: null,
    });
    expect(r.decision_at).not.toBeNull();
    await setGroups(ctx, w.caller.clientId, ALL_GROUPS);
    const full = (await detail(w)).json();
    expect(full.document_number).toMatch(/^P\d+/);
    expect(full.documents.map((d: { file_role: string }) => d.file_role)).toContain('passport');
    const file = await api(ctx, 'GET', `/kyc/detail/${w.userId}/documents/passport`, w.caller.headers);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    const qfile = full.sof_questionnaire.files[0].qfile_id;
    const q = await api(ctx, 'GET', `/kyc/detail/${w.userId}/questionnaire-files/${qfile}`, w.caller.headers);
    expect(q.statusCode).toBe(200);
    expect(q.headers['content-type']).toBe('application/pdf');
  });

  it('a resent webhook changes nothing; an unsigned or badly signed one is 401', async () => {
    const before = (await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).length;
    await standin.control.webhooks.resendLast();
    expect(standin.control.webhooks.sent.at(-1)!.status).toBe(200);
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(before);
    const body = standin.control.webhooks.sent.at(-1)!.body;
    for (const headers of [
      {},
      { 'x-payload-digest': createHmac('sha256', 'wrong').update(body).digest('hex') },
      {
        'x-payload-digest': createHmac('sha1', 'standin-webhook-secret').update(body).digest('hex'),
        'x-payload-digest-alg': 'HMAC_SHA1_HEX',
      },
    ]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/providers/verification/notifications',
        payload: body,
        headers: { 'content-type': 'application/json', ...headers },
      });
      expect(res.statusCode).toBe(401);
    }
  });
});

describe('ordering, missed webhooks, resubmission', () => {
  it('a late "pending" webhook never overwrites the decision', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    standin.control.webhooks.settings.hold = true;
    await standin.control.decide(applicantOfUser(w.userId).id, 'approve');
    await standin.control.webhooks.releaseHeld('reverse');
    expect(standin.control.webhooks.sent.slice(-2).map((s) => JSON.parse(s.body).type)).toEqual([
      'applicantReviewed',
      'applicantPending',
    ]);
    expect((await detail(w)).json().status).toBe('approved');
    expect(await kycStatus(w)).toBe('approved');
  });

  it('a webhook never sent: reconciliation re-reads the applicant after the bound', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    standin.control.webhooks.settings.drop = true;
    await standin.control.decide(applicantOfUser(w.userId).id, 'approve');
    standin.control.webhooks.settings.drop = false;
    expect((await detail(w)).statusCode).toBe(404);
    await reconcileVerifications(ctx.deps);
    expect((await detail(w)).statusCode).toBe(404);
    ctx.clock.advance(61 * 1000);
    const n = await reconcileVerifications(ctx.deps);
    expect(n).toBeGreaterThanOrEqual(1);
    expect((await detail(w)).json().status).toBe('approved');
    const events = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect((events.at(-1)!.data as { source: string }).source).toBe('system');
  });

  it('reconciliation of a link nobody used writes no record (the link can still lapse unused)', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    ctx.clock.advance(61 * 1000);
    await reconcileVerifications(ctx.deps);
    expect((await detail(w)).statusCode).toBe(404);
    expect(await kycStatus(w)).toBe('pending');
  });

  it('RETRY rejection, resubmitted through a new link to the same applicant, then approved', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, { level: 'basic' });
    const id = applicantOfUser(w.userId).id;
    await standin.control.decide(id, 'reject_retry');
    expect(await kycStatus(w)).toBe('rejected');
    const again = await api(ctx, 'POST', `/kyc/${w.userId}/resubmit`, w.caller.headers, {});
    expect(again.statusCode).toBe(201);
    expect(applicantOfUser(w.userId).id).toBe(id);
    await standin.control.decide(id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    const history = (await api(ctx, 'GET', `/kyc/detail/${w.userId}/history`, w.caller.headers)).json();
    expect(history.records.map((r: { status: string }) => r.status)).toEqual(['approved', 'declined']);
  });
});

describe('KYB through Sumsub', () => {
  it('a company applicant with key people', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, w, {}, 'kyb');
    const a = standin.control.byExternalUserId(`svc-kyb-${w.businessId}`)!;
    expect(a.type).toBe('company');
    expect(a.fixedInfo).toBeUndefined();
    expect((await handOver(link.verification_url)).statusCode).toBe(303);
    await standin.control.decide(a.id, 'approve');
    const r = (await api(ctx, 'GET', `/kyb/detail/${w.businessId}`, w.caller.headers)).json();
    expect(r).toMatchObject({
      status: 'approved',
      kind: 'kyb',
      company_name: 'Roe Trading Ltd',
      registration_number: '09876543',
      registry_status: 'verified',
      first_name: null,
    });
    expect(r.business_key_people.map((p: { name: string }) => p.name)).toEqual([
      'Alex Director',
      'Sam Owner',
    ]);
    // A re-read of the same state and data (key people and registry details as jsonb) changes nothing.
    const revision = async () =>
      (
        await ctx.db
          .select()
          .from(verificationRecords)
          .where(eq(verificationRecords.sessionId, link.verification_id))
      )[0]!.providerRevision;
    const rev = await revision();
    await new Promise((res) => setTimeout(res, 5)); // another createdAtMs: not a resend
    await standin.control.webhooks.send(
      'applicantPersonalInfoChanged',
      webhookPayload('applicantPersonalInfoChanged', a, new Date()),
    );
    expect(await revision()).toBe(rev);
  });
});

describe('Sumsub down', () => {
  it('a link answers 503 at once with nothing half-written', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    standin.control.setDown(true);
    const before = (await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).length;
    const res = await api(ctx, 'POST', `/kyc/users/${w.userId}/verification-link`, w.caller.headers, {});
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: KycMessages.providerUnavailable });
    expect(await kycStatus(w)).toBe('none');
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(before);
    standin.control.setDown(false);
  });
});

describe('levels: the applicant serves every link of the person', () => {
  const history = async (w: KycWorld) =>
    (await api(ctx, 'GET', `/kyc/detail/${w.userId}/history`, w.caller.headers)).json().records as {
      verification_id: string;
      status: string;
      poa_status: string | null;
    }[];

  it('approved at basic, an enhanced link: no approval until the enhanced review', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, { level: 'basic' });
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    const enhanced = await createLink(ctx, w, { level: 'enhanced' });
    // A GET alone (a mail scanner following the link, a preview) moves nothing.
    for (let i = 0; i < 2; i++) expect((await openPage(enhanced.verification_url)).statusCode).toBe(200);
    expect(a.review).toMatchObject({ levelName: 'basic-kyc-level', reviewStatus: 'completed' });
    expect(standin.control.requests.some((r) => r.path.includes(`/${a.id}/moveToLevel`))).toBe(false);
    expect(await kycStatus(w)).toBe('approved');
    expect((await handOver(enhanced.verification_url)).statusCode).toBe(303);
    // The person's click on the enhanced link moved the applicant: its review starts over there.
    expect(a.review).toMatchObject({ levelName: 'enhanced-kyc-level', reviewStatus: 'init', attemptCnt: 0 });
    expect(
      standin.control.requests.some((r) => r.path.includes(`/${a.id}/moveToLevel?name=enhanced-kyc-level`)),
    ).toBe(true);
    // A resent webhook and reconciliation: the basic approval is not the enhanced link's result.
    await standin.control.webhooks.resendLast();
    ctx.clock.advance(61 * 1000);
    await reconcileVerifications(ctx.deps);
    expect((await history(w)).map((r) => r.status)).toEqual(['approved']);
    expect(await kycStatus(w)).toBe('approved');
    await standin.control.decide(a.id, 'review');
    // History order: decision_at descending, undecided last.
    expect((await history(w)).map((r) => r.status)).toEqual(['approved', 'in_review']);
    await standin.control.decide(a.id, 'approve');
    const records = await history(w);
    expect(records.map((r) => r.status)).toEqual(['approved', 'approved']);
    expect(records[0]!.verification_id).toBe(enhanced.verification_id);
    expect(records[0]!.poa_status).toBe('approved');
    expect(records[1]!.poa_status).toBeNull();
    expect(await kycStatus(w)).toBe('approved');
  });

  it('an applicant being checked is not moved: its review finishes at its own level', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const basic = await createLink(ctx, w, { level: 'basic' });
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'review');
    const enhanced = await createLink(ctx, w, { level: 'enhanced' });
    expect((await handOver(enhanced.verification_url)).statusCode).toBe(303);
    expect(a.review.levelName).toBe('basic-kyc-level');
    expect(standin.control.requests.some((r) => r.path.includes(`/${a.id}/moveToLevel`))).toBe(false);
    // The basic review completes: it is the basic link's result, not the enhanced one's.
    completeReview(a, { reviewAnswer: 'GREEN' }, new Date());
    await standin.control.webhooks.send(
      'applicantReviewed',
      webhookPayload('applicantReviewed', a, new Date()),
    );
    const records = await history(w);
    expect(records.map((r) => r.status)).toEqual(['approved']);
    expect(records[0]!.verification_id).toBe(basic.verification_id);
    expect(records[0]!.poa_status).toBeNull();
    expect(await kycStatus(w)).toBe('approved');
  });
});

describe('re-decisions and resets', () => {
  it('GREEN turned RED by the officer in the same attempt reaches the record and the subject', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    const attempt = a.review.attemptCnt;
    await standin.control.redecide(a.id, 'reject_final', { aml: true });
    expect(a.review.attemptCnt).toBe(attempt);
    expect((await detail(w)).json()).toMatchObject({ status: 'declined', data_trusted: false });
    expect(await kycStatus(w)).toBe('rejected');
    const events = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect((events.at(-1)!.data as { current_kyc_status: string }).current_kyc_status).toBe('rejected');
    // The same state read again (a resend, reconciliation) changes nothing.
    await standin.control.webhooks.resendLast();
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(events.length);
  });

  it('an older state read late never overwrites a newer one', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    const approvedReview = structuredClone(a.review);
    await standin.control.redecide(a.id, 'reject_retry');
    expect(await kycStatus(w)).toBe('rejected');
    // A read that saw the approval (older reviewDate) arrives after the rejection was applied.
    const { applyVerificationResult } = await import('../../src/modules/kyc/notifications.service');
    const { toVerificationResult } = await import('../../src/providers/verification/sumsub/mapping');
    const { findSessionsOfProviderSubject } = await import('../../src/modules/kyc/verification.repo');
    const [session] = await findSessionsOfProviderSubject(ctx.deps.db, a.id, 1);
    const stale = toVerificationResult({
      providerRef: session!.providerRef!,
      applicant: { ...a, review: { ...approvedReview, reviewDate: '2020-01-01 00:00:00+0000' } },
      steps: {},
      checks: [],
      kind: 'kyc',
      keyPeople: null,
      now: new Date(),
    });
    expect((await applyVerificationResult(ctx.deps, session!, stale, 'provider_webhook')).applied).toBe(
      false,
    );
    expect(await kycStatus(w)).toBe('rejected');
  });

  it('applicantReset: the approved subject is no longer verified (record pending), then verified again', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    await standin.control.reset(a.id);
    expect(JSON.parse(standin.control.webhooks.sent.at(-1)!.body).type).toBe('applicantReset');
    expect((await detail(w)).json()).toMatchObject({
      status: 'pending',
      data_trusted: false,
      decision_at: null,
      liveness_status: null,
    });
    expect(await kycStatus(w)).toBe('pending');
    await standin.control.decide(a.id, 'approve');
    expect((await detail(w)).json().status).toBe('approved');
    expect(await kycStatus(w)).toBe('approved');
  });
});

describe('a rejection or a reset at a level we hold no link for', () => {
  it('an officer moves the approved applicant to another level and rejects it there: the subject is no longer verified', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, w, { level: 'basic' });
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    standin.control.moveLevel(a.id, 'standard-kyc-level');
    await standin.control.decide(a.id, 'reject_final');
    expect(a.review).toMatchObject({ levelName: 'standard-kyc-level', reviewStatus: 'completed' });
    expect((await detail(w)).json()).toMatchObject({
      verification_id: link.verification_id,
      status: 'declined',
    });
    expect(await kycStatus(w)).toBe('rejected');
  });

  it('a GREEN at another level approves nothing; a reset there leaves the subject unverified', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, { level: 'basic' });
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'reject_retry');
    expect(await kycStatus(w)).toBe('rejected');
    standin.control.moveLevel(a.id, 'standard-kyc-level');
    await standin.control.decide(a.id, 'approve');
    // The approval at a level we hold no link for is not our link's result.
    expect((await detail(w)).json().status).toBe('declined');
    expect(await kycStatus(w)).toBe('rejected');
    const second = await createLink(ctx, w, { level: 'basic' });
    standin.control.moveLevel(a.id, 'basic-kyc-level');
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    standin.control.moveLevel(a.id, 'standard-kyc-level');
    await standin.control.decide(a.id, 'approve');
    await standin.control.reset(a.id);
    const history = (await api(ctx, 'GET', `/kyc/detail/${w.userId}/history`, w.caller.headers)).json()
      .records as { verification_id: string; status: string }[];
    expect(history.find((r) => r.verification_id === second.verification_id)?.status).toBe('pending');
    expect(await kycStatus(w)).toBe('pending');
  });
});

describe.each(['check', 'profile'] as const)(
  'review.createDate %s: a reset or a new attempt is never discarded as older',
  (mode) => {
    beforeAll(() => {
      standin.control.createDate = mode;
    });
    afterAll(() => {
      standin.control.createDate = 'check';
    });
    // The profile was created an hour before the checks (only seen in mode `profile`).
    const backdate = (a: { createdAt: string }) => {
      a.createdAt = new Date(Date.now() - 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    };

    it('a reset after an approval is applied (the subject is no longer verified)', async () => {
      const w = await createKycWorld(ctx, { productionAccess: true });
      await createLink(ctx, w, {});
      const a = applicantOfUser(w.userId);
      backdate(a);
      await standin.control.decide(a.id, 'approve');
      expect(await kycStatus(w)).toBe('approved');
      await standin.control.reset(a.id);
      expect((await detail(w)).json().status).toBe('pending');
      expect(await kycStatus(w)).toBe('pending');
    });

    it('a new attempt after an approval is applied', async () => {
      const w = await createKycWorld(ctx, { productionAccess: true });
      await createLink(ctx, w, {});
      const a = applicantOfUser(w.userId);
      backdate(a);
      await standin.control.decide(a.id, 'approve');
      expect(await kycStatus(w)).toBe('approved');
      await standin.control.decide(a.id, 'review');
      expect((await detail(w)).json().status).toBe('in_review');
    });
  },
);

describe('re-check of approved subjects (a lost webhook of a later rejection)', () => {
  it('an officer rejects the approved applicant at another level, its webhook lost: found at the next daily re-check', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, { level: 'basic' });
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    standin.control.webhooks.settings.drop = true;
    try {
      standin.control.moveLevel(a.id, 'standard-kyc-level');
      await standin.control.decide(a.id, 'reject_final');
    } finally {
      standin.control.webhooks.settings.drop = false;
    }
    // Reconciliation leaves decided links alone; the re-check waits for its cadence (shortened
    // here to two minutes, the default being a day, so the callers' tokens stay valid).
    const sumsub = sumsubSettings(ctx.deps.config)!;
    const cadence = sumsub.recheckApprovedSeconds;
    sumsub.recheckApprovedSeconds = 120;
    try {
      ctx.clock.advance(61 * 1000);
      await reconcileVerifications(ctx.deps, 500);
      await recheckApprovedVerifications(ctx.deps, 500);
      expect(await kycStatus(w)).toBe('approved');
      ctx.clock.advance(121 * 1000);
      expect(await recheckApprovedVerifications(ctx.deps, 500)).toBeGreaterThanOrEqual(1);
    } finally {
      sumsub.recheckApprovedSeconds = cadence;
    }
    expect((await detail(w)).json().status).toBe('declined');
    expect(await kycStatus(w)).toBe('rejected');
    const events = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect((events.at(-1)!.data as { source: string }).source).toBe('system');
  });
});

describe('applicantPersonalInfoChanged', () => {
  it('corrected identity data are stored though the review state is unchanged; the decision stays', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    const before = (await detail(w)).json();
    expect(before).toMatchObject({ status: 'approved', last_name: 'Doe', date_of_birth: '1990-04-12' });
    const events = (await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).length;
    // An officer corrects the name and date of birth read from the document.
    await standin.control.correctInfo(a.id, { lastName: 'Doe-Smith', dob: '1990-04-21' });
    expect(standin.control.webhooks.sent.at(-1)).toMatchObject({ status: 200 });
    expect(JSON.parse(standin.control.webhooks.sent.at(-1)!.body).type).toBe('applicantPersonalInfoChanged');
    const after = (await detail(w)).json();
    expect(after).toMatchObject({
      status: 'approved',
      data_trusted: true,
      last_name: 'Doe-Smith',
      full_name: 'Jane Doe-Smith',
      date_of_birth: '1990-04-21',
      decision_at: before.decision_at,
    });
    expect(await kycStatus(w)).toBe('approved');
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(events);
    // Another applicantPersonalInfoChanged with nothing new: nothing more changes.
    await standin.control.correctInfo(a.id, { lastName: 'Doe-Smith' });
    expect((await detail(w)).json()).toEqual(after);
  });

  it('on an approved record: an audit entry names the changed fields (no values); a value no longer reported never blanks one', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    const { nationality } = (await detail(w)).json();
    expect(nationality).toEqual(expect.any(String));
    // Sumsub no longer reports the nationality (nor a country to fall back on).
    await standin.control.correctInfo(a.id, {
      lastName: 'Doe-Smith',
      nationality: undefined,
      country: undefined,
    });
    expect((await detail(w)).json()).toMatchObject({
      status: 'approved',
      last_name: 'Doe-Smith',
      date_of_birth: '1990-04-12',
      nationality,
    });
    const entries = await ctx.db
      .select()
      .from(activityLogs)
      .where(eq(activityLogs.action, 'verification_record.data_corrected'));
    const mine = entries.filter((e) => e.clientId === w.caller.clientId);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.metadata).toMatchObject({ status: 'approved', fields: ['last_name', 'full_name'] });
    expect(JSON.stringify(mine[0])).not.toContain('Doe-Smith');
  });
});

describe('deactivated or deleted applicants', () => {
  it('a deactivated applicant (deleted: true) no longer verifies the subject', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    await standin.control.deactivate(a.id);
    expect((await detail(w)).json()).toMatchObject({
      status: 'pending',
      data_trusted: false,
      decision_at: null,
    });
    expect(await kycStatus(w)).toBe('pending');
  });

  it('a new link after a deactivation gets a new applicant (the deactivated one is never reused)', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const old = applicantOfUser(w.userId);
    await standin.control.decide(old.id, 'approve');
    await standin.control.deactivate(old.id);
    expect(await kycStatus(w)).toBe('pending');
    const link = await createLink(ctx, w, {});
    const fresh = standin.control.byExternalUserId(`svc-kyc-${w.userId}-2`)!;
    expect(fresh).toBeDefined();
    expect(fresh.id).not.toBe(old.id);
    expect((await sessionRow(link.verification_id)).providerRef).toBe(`${fresh.id}:${link.verification_id}`);
    // The person starts from scratch in the new profile and is verified again.
    expect((await handOver(link.verification_url)).statusCode).toBe(303);
    expect(fresh.fixedInfo).toEqual({ firstName: 'Jane', lastName: 'Roe' });
    await standin.control.decide(fresh.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    // The next link reuses the new applicant.
    const next = await createLink(ctx, w, {});
    expect((await sessionRow(next.verification_id)).providerRef).toBe(`${fresh.id}:${next.verification_id}`);
    expect(old.review.reviewStatus).toBe('completed');
  });

  it("an officer reactivates the old profile: the next link keeps the latest link's applicant (the person is not split)", async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const old = applicantOfUser(w.userId);
    await standin.control.deactivate(old.id);
    await createLink(ctx, w, {});
    const fresh = standin.control.byExternalUserId(`svc-kyc-${w.userId}-2`)!;
    standin.control.reactivate(old.id);
    const next = await createLink(ctx, w, {});
    expect((await sessionRow(next.verification_id)).providerRef).toBe(`${fresh.id}:${next.verification_id}`);
  });

  it('a deactivated profile Sumsub no longer finds by externalUserId (404, id still taken): the next number is used', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    await standin.control.deactivate(applicantOfUser(w.userId).id);
    standin.control.deactivatedFoundByExternalId = false;
    try {
      const link = await createLink(ctx, w, {});
      const fresh = standin.control.byExternalUserId(`svc-kyc-${w.userId}-2`)!;
      expect((await sessionRow(link.verification_id)).providerRef).toBe(
        `${fresh.id}:${link.verification_id}`,
      );
    } finally {
      standin.control.deactivatedFoundByExternalId = true;
    }
  });

  it('an applicant Sumsub answers 404 for (deleted) no longer verifies the subject', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    await standin.control.remove(a.id);
    expect((await detail(w)).json()).toMatchObject({ status: 'pending', data_trusted: false });
    expect(await kycStatus(w)).toBe('pending');
  });
});

describe('review fixes: the hosted page', () => {
  it('the old link of a deactivated applicant is closed (410, ask for a new link), not retry-later', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    await standin.control.deactivate(a.id);
    const res = await handOver(link.verification_url);
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('This verification link is no longer valid');
    expect(res.body).toContain(KycMessages.linkWithdrawn);
  });

  it('an approved person whose WebSDK link Sumsub refuses sees our final page, not a 503; nothing is PATCHed', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, w, {});
    expect((await handOver(link.verification_url)).statusCode).toBe(303);
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve');
    expect(await kycStatus(w)).toBe('approved');
    const before = standin.control.requests.length;
    standin.control.failNext({ status: 400, count: 1, path: /websdkLink/ });
    const res = await handOver(link.verification_url);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`/verify/${tokenOf(link.verification_url)}/complete$`));
    expect(standin.control.requests.slice(before).filter((r) => r.method === 'PATCH')).toEqual([]);
  });

  it('an acceptance of an older text is asked again; every acceptance is kept with the text shown, IP and user agent', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    const link = await createLink(ctx, w, {});
    const current = ctx.deps.providers.verification.consent!;
    const page = await openPage(link.verification_url);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/verify/${tokenOf(link.verification_url)}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Mozilla/5.0 (consent test)',
      },
      remoteAddress: '203.0.113.7',
      payload: new URLSearchParams({
        consent: 'accept',
        consent_version: /name="consent_version" value="([^"]+)"/.exec(page.body)![1]!,
      }).toString(),
    });
    expect(res.statusCode).toBe(303);
    const [merchant] = await ctx.db.select().from(clients).where(eq(clients.id, w.caller.clientId));
    const evidence = await ctx.db
      .select()
      .from(verificationConsents)
      .where(eq(verificationConsents.sessionId, link.verification_id));
    expect(evidence).toEqual([
      expect.objectContaining({
        clientId: w.caller.clientId,
        provider: 'sumsub',
        version: current.version,
        text: current.text.replaceAll('{merchant}', merchant!.companyName!),
        privacyUrl: 'https://sumsub.example/privacy-notice',
        ip: '203.0.113.7',
        userAgent: 'Mozilla/5.0 (consent test)',
      }),
    ]);
    expect(evidence[0]!.text).not.toContain('{merchant}');
    // The person had accepted an older text: the page asks again (the box, no "You accepted").
    await ctx.db
      .update(verificationSessions)
      .set({ consentVersion: 'sha256:0000000000000000' })
      .where(eq(verificationSessions.id, link.verification_id));
    const again = await openPage(link.verification_url);
    expect(again.body).toContain('name="consent" id="consent-accept"');
    expect(again.body).not.toContain('You accepted this on');
    const n = standin.control.requests.length;
    expect((await postPage(link.verification_url, { consent_version: current.version })).statusCode).toBe(
      422,
    );
    expect(standin.control.requests.length).toBe(n);
    expect((await handOver(link.verification_url)).statusCode).toBe(303);
    expect((await sessionRow(link.verification_id)).consentVersion).toBe(current.version);
    const all = await ctx.db
      .select()
      .from(verificationConsents)
      .where(eq(verificationConsents.sessionId, link.verification_id));
    expect(all.map((e) => e.version)).toEqual([current.version, current.version]);
  });
});

describe('production guards', () => {
  it('a webhook with sandboxMode: true is acknowledged and ignored by a production deployment', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    const a = applicantOfUser(w.userId);
    standin.control.webhooks.settings.drop = true;
    await standin.control.decide(a.id, 'approve');
    standin.control.webhooks.settings.drop = false;
    await standin.control.webhooks.send(
      'applicantReviewed',
      webhookPayload('applicantReviewed', a, new Date(), true),
    );
    expect(standin.control.webhooks.sent.at(-1)!.status).toBe(200);
    expect((await detail(w)).statusCode).toBe(404);
    expect(await kycStatus(w)).toBe('pending');
    // The same decision from production (sandboxMode false) is applied.
    await standin.control.webhooks.send(
      'applicantReviewed',
      webhookPayload('applicantReviewed', a, new Date()),
    );
    expect(await kycStatus(w)).toBe('approved');
  });
});

describe('AML from the AML case', () => {
  it('hits an officer cleared are shown (clear, with their count and names)', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, { level: 'enhanced' });
    const a = applicantOfUser(w.userId);
    await standin.control.decide(a.id, 'approve', { aml: true });
    expect((await detail(w)).json()).toMatchObject({
      status: 'approved',
      aml_status: 'clear',
      aml_total_hits: 2,
    });
    await setGroups(ctx, w.caller.clientId, ALL_GROUPS);
    const hits = (await detail(w)).json().aml_hits as { hit_id: string; name: string }[];
    expect(hits.map((h) => h.name)).toEqual(['Jane Doe (PEP list)', 'J. Doe (sanctions list)']);
    const amlReads = () =>
      standin.control.requests.filter((r) => r.path === `/resources/api/applicants/${a.id}/amlCase`).length;
    expect(amlReads()).toBe(1);
    // A second notification of the same review state: the AML case (10 requests a
    // minute) is not read again.
    await standin.control.webhooks.send('applicantReviewed', {
      ...webhookPayload('applicantReviewed', a, new Date()),
      correlationId: 'a-second-notification',
    });
    expect(amlReads()).toBe(1);
    // A changed state is read with its AML case.
    await standin.control.redecide(a.id, 'reject_final', { aml: true });
    expect(amlReads()).toBe(2);
  });

  it('COMPROMISED_PERSONS is an AML label; the undocumented AML is not', () => {
    const result = (labels: string[]) =>
      toVerificationResult({
        providerRef: 'x',
        applicant: {
          id: 'a',
          inspectionId: 'a',
          externalUserId: 'e',
          review: { reviewStatus: 'completed', reviewResult: { reviewAnswer: 'RED', rejectLabels: labels } },
        },
        steps: {},
        checks: ['aml'],
        kind: 'kyc',
        keyPeople: null,
        now: new Date(),
      }).checks.aml;
    expect(result(['COMPROMISED_PERSONS'])).toMatchObject({ status: 'potential_match', totalHits: 1 });
    expect(result(['AML'])).toMatchObject({ status: 'clear', totalHits: 0 });
  });
});

describe('KYB 2.0', () => {
  it('an alpha-2 country is sent as alpha-3; beneficiaries read from fixedInfo with types[] and beneficiaryInfo', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    standin.control.kybFlow = 'kyb2';
    try {
      const link = await createLink(ctx, w, {}, 'kyb');
      const a = standin.control.byExternalUserId(`svc-kyb-${w.businessId}`)!;
      expect((await handOver(link.verification_url)).statusCode).toBe(303);
      expect((a.fixedInfo!.companyInfo as { country: string }).country).toBe('GBR');
      await standin.control.decide(a.id, 'approve');
      const r = (await api(ctx, 'GET', `/kyb/detail/${w.businessId}`, w.caller.headers)).json();
      expect(r).toMatchObject({ status: 'approved', registration_country: 'GBR' });
      expect(r.business_key_people).toEqual(STANDIN_KEY_PEOPLE);
    } finally {
      standin.control.kybFlow = 'kyb1';
    }
  });
});

describe('notification URLs', () => {
  it('the URL registered with Sumsub and the generic provider URL both take a signed webhook', async () => {
    const w = await createKycWorld(ctx, { productionAccess: true });
    await createLink(ctx, w, {});
    await standin.control.decide(applicantOfUser(w.userId).id, 'approve');
    const body = standin.control.webhooks.sent.at(-1)!.body;
    const digest = createHmac('sha256', 'standin-webhook-secret').update(body).digest('hex');
    for (const url of [
      '/api/v1/providers/verification/notifications',
      '/api/v1/providers/verification/sumsub/notifications',
    ]) {
      const signed = await ctx.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          'content-type': 'application/json',
          'x-payload-digest': digest,
          'x-payload-digest-alg': 'HMAC_SHA256_HEX',
        },
      });
      expect(signed.statusCode, url).toBe(200);
      expect(signed.json()).toMatchObject({ received: true });
      const unsigned = await ctx.app.inject({
        method: 'POST',
        url,
        payload: body,
        headers: { 'content-type': 'application/json' },
      });
      expect(unsigned.statusCode, url).toBe(401);
    }
    expect(await kycStatus(w)).toBe('approved');
  });
});
