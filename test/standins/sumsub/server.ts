/**
 * A stand-in for Sumsub's API, built from Sumsub's documentation (docs/vendors/sumsub.md), not from
 * our adapter: signed requests (X-App-Token, X-App-Access-Ts, X-App-Access-Sig), applicants and
 * company applicants with beneficiaries, levels, review status and steps, document images, the
 * WebSDK external link and page (approve, reject with RETRY or FINAL, leave in review), signed
 * webhooks (duplicates, out of order, never sent), and 429 / 5xx / slow answers on demand.
 *
 *   npx tsx test/standins/sumsub/server.ts --port 4020 --webhook-url http://localhost:8000/api/v1/providers/verification/notifications
 *
 * Tests import `startSumsubStandin({...})`, which returns its URL and a control handle.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import {
  type Applicant,
  applicantView,
  DEFAULT_LEVELS,
  MID_REVIEW,
  moveToLevel,
  newApplicant,
  resetApplicant,
  type StandinLevel,
  type StoredImage,
} from './applicants';
import {
  amlCaseOf,
  completeReview,
  type Decision,
  isFinalRejected,
  reviewResultOf,
  uploadDocuments,
} from './submission';
import { type DigestAlg, WebhookSender, webhookPayload } from './webhooks';
import { messagePage, websdkPage } from './websdk-page';

export interface SumsubStandinOptions {
  port?: number;
  appToken?: string;
  secretKey?: string;
  webhookUrl?: string | null;
  webhookSecret?: string;
  webhookAlg?: DigestAlg;
  levels?: StandinLevel[];
  /** Allowed clock skew of X-App-Access-Ts (Sumsub's own integration notes say about 60 s). */
  maxSkewSeconds?: number;
}

interface Failure {
  status: number;
  count: number;
  retryAfter?: string;
  path?: RegExp;
  /** Runs when the failure fires: a change made at Sumsub meanwhile (e.g. an officer completes the review). */
  meanwhile?: () => void;
}

export interface SumsubStandinControl {
  readonly applicants: Map<string, Applicant>;
  readonly webhooks: WebhookSender;
  /** Requests received on /resources (method, path and JSON body), for assertions. */
  readonly requests: { method: string; path: string; status: number; body?: unknown }[];
  /** The next `count` API requests (optionally only those whose path matches) answer `status`. */
  failNext(f: Failure): void;
  /** Every API request answers 503 until switched back. */
  setDown(down: boolean): void;
  /** Delay before every API answer. */
  setDelayMs(ms: number): void;
  /** Decides an applicant's review as the WebSDK page would (uploads first when nothing was uploaded). */
  decide(applicantId: string, decision: Decision, opts?: { aml?: boolean }): Promise<void>;
  /**
   * A compliance officer (or ongoing AML monitoring) changes a completed review in the same attempt
   * (new answer, new reviewDate) and Sumsub notifies `applicantReviewed` again.
   */
  redecide(
    applicantId: string,
    decision: Exclude<Decision, 'review'>,
    opts?: { aml?: boolean },
  ): Promise<void>;
  /** Resets the applicant as the dashboard's "Reset" does (back to init, documents inactive) and notifies `applicantReset`. */
  reset(applicantId: string): Promise<void>;
  byExternalUserId(externalUserId: string): Applicant | undefined;
  /**
   * A workflow, an officer or the dashboard moves the applicant to another level (its review starts
   * over there), as `moveToLevel` does; no webhook.
   */
  moveLevel(applicantId: string, levelName: string): void;
  /**
   * Someone (an officer in the dashboard, or the applicant) corrects the data recognised from the
   * documents, as `PATCH /resources/applicants/{id}/info` does
   * (reference/change-applicant-information-extracted-by-sumsub): the review stays as it is and
   * Sumsub notifies `applicantPersonalInfoChanged` (docs/webhook-types).
   */
  correctInfo(applicantId: string, info: Record<string, unknown>): Promise<void>;
  /** Deactivates the profile (`deleted: true`, reference/deactivate-applicant-profile) and notifies `applicantDeactivated`. */
  deactivate(applicantId: string): Promise<void>;
  /** Deletes the applicant for good (its reads answer 404) and notifies `applicantDeleted`. */
  remove(applicantId: string): Promise<void>;
  /** An officer reactivates a deactivated profile (reference/activate-applicant-profile). */
  reactivate(applicantId: string): void;
  /**
   * Whether a lookup by externalUserId finds a deactivated profile. Not documented either way:
   * `false` answers 404 for it while its externalUserId stays taken (a create answers 409).
   */
  deactivatedFoundByExternalId: boolean;
  /** How `review.createDate` behaves: renewed per check (`check`) or the profile's creation time (`profile`). */
  createDate: 'check' | 'profile';
  /** Where company beneficiaries are kept: `kyb1` (info, one `type`) or `kyb2` (fixedInfo, `types[]`). */
  kybFlow: 'kyb1' | 'kyb2';
}

export interface SumsubStandin {
  url: string;
  control: SumsubStandinControl;
  close(): Promise<void>;
}

const CLIENT_ID = 'standin-client';

function apiError(
  res: ServerResponse,
  code: number,
  description: string,
  extra: Record<string, unknown> = {},
) {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ description, code, correlationId: `req-standin-${Date.now()}`, ...extra }));
}

function json(res: ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function html(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Names changed by PATCH get their Latin forms too ("there could also be additional fields with
 * automatic transliteration", reference/change-applicant-information-extracted-by-sumsub); the
 * stand-in's names are Latin already.
 */
function transliterated(data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  for (const f of ['firstName', 'middleName', 'lastName'])
    if (typeof out[f] === 'string' && out[`${f}En`] === undefined) out[`${f}En`] = out[f];
  return out;
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startSumsubStandin(opts: SumsubStandinOptions = {}): Promise<SumsubStandin> {
  const appToken = opts.appToken ?? 'sbx:standin-app-token';
  const secretKey = opts.secretKey ?? 'standin-secret-key';
  const maxSkew = opts.maxSkewSeconds ?? 60;
  const levels = new Map((opts.levels ?? DEFAULT_LEVELS).map((l) => [l.name, l]));
  const applicants = new Map<string, Applicant>();
  const links = new Map<
    string,
    { applicantId: string; levelName: string; successUrl?: string; rejectUrl?: string }
  >();
  const requests: SumsubStandinControl['requests'] = [];
  const failures: Failure[] = [];
  let down = false;
  let delayMs = 0;
  let imageSeq = 1000;
  let baseUrl = '';
  const webhooks = new WebhookSender({
    url: opts.webhookUrl ?? null,
    secret: opts.webhookSecret ?? 'standin-webhook-secret',
    alg: opts.webhookAlg ?? 'HMAC_SHA256_HEX',
    duplicate: false,
    hold: false,
    drop: false,
  });
  const images = {
    next: () => ++imageSeq,
    add(a: Applicant, contentType: string, bytes: Buffer) {
      const img: StoredImage = { imageId: ++imageSeq, contentType, bytes };
      a.images.push(img);
      return img.imageId;
    },
  };
  const byExternalUserId = (ext: string) => [...applicants.values()].find((a) => a.externalUserId === ext);
  const sandboxMode = appToken.startsWith('sbx:');
  const notify = (type: string, a: Applicant) =>
    webhooks.send(type, webhookPayload(type, a, new Date(), sandboxMode));

  /** KYB: the company's beneficiaries are individual applicants of their own (reference: add beneficiary). */
  function addBeneficiaries(company: Applicant) {
    const people = [
      { firstName: 'Alex', lastName: 'Director', type: 'representative', positions: ['director'] },
      { firstName: 'Sam', lastName: 'Owner', type: 'ubo', positions: ['shareholder'], shareSize: 75 },
    ];
    const beneficiaries = people.map((p) => {
      const b = newApplicant({
        level: levels.get('basic-kyc-level') ?? DEFAULT_LEVELS[0]!,
        externalUserId: `${company.externalUserId}-beneficiary-${p.lastName.toLowerCase()}`,
        info: { firstName: p.firstName, lastName: p.lastName, nationality: 'GBR', country: 'GBR' },
        clientId: CLIENT_ID,
        now: new Date(),
      });
      applicants.set(b.id, b);
      return {
        applicantId: b.id,
        type: p.type,
        positions: p.positions,
        ...(p.shareSize ? { shareSize: p.shareSize } : {}),
      };
    });
    const given = (company.fixedInfo?.companyInfo ?? company.info.companyInfo ?? {}) as Record<
      string,
      unknown
    >;
    if (control.kybFlow === 'kyb2') {
      // KYB 2.0 (reference/link-beneficiary-to-company-kyb-20): beneficiaries in fixedInfo, with
      // `types[]`; a person without a profile of their own is `beneficiaryInfo` only.
      company.fixedInfo = {
        ...(company.fixedInfo ?? {}),
        companyInfo: {
          ...given,
          beneficiaries: [
            {
              ...beneficiaries[0],
              type: undefined,
              positions: undefined,
              types: ['representative', 'director'],
            },
            {
              beneficiaryInfo: { firstName: 'Sam', lastName: 'Owner', nationality: 'GBR' },
              types: ['ubo', 'shareholder'],
              shareSize: 75,
            },
          ],
        },
      };
      beneficiaries.length = 0;
    }
    company.info = {
      ...company.info,
      companyInfo: {
        companyName: given.companyName ?? 'Stand-in Company Ltd',
        registrationNumber: given.registrationNumber ?? '01234567',
        country: given.country ?? 'GBR',
        incorporatedOn: '2015-03-02',
        type: 'Private Company Limited by Shares',
        legalAddress: '1 Registry Lane, London EC1A 1AA',
        registrationLocation: 'Companies House',
        beneficiaries,
      },
    };
  }

  async function submit(a: Applicant, decision: Decision, aml: boolean) {
    const level = levels.get(a.review.levelName)!;
    uploadDocuments(a, level.steps, images, new Date());
    stampCreateDate(a);
    if (a.type === 'company') addBeneficiaries(a);
    await notify('applicantPending', a);
    if (decision === 'review') return;
    const result = reviewResultOf(decision, aml);
    completeReview(a, result, new Date());
    a.amlCase = amlCaseOf(a, aml, result.reviewAnswer, new Date());
    await notify('applicantReviewed', a);
  }

  async function doReset(a: Applicant) {
    resetApplicant(a, new Date());
    stampCreateDate(a);
    await notify('applicantReset', a);
  }

  /**
   * `review.createDate` is documented as when "the applicant check was initiated" (renewed by each
   * attempt and reset: mode `check`, the default); an older version of the docs said "the profile
   * was created" (mode `profile`: it stays the applicant's creation time).
   */
  function stampCreateDate(a: Applicant) {
    if (control.createDate === 'profile') a.review.createDate = `${a.createdAt}+0000`;
  }

  function checkSignature(req: IncomingMessage, path: string, body: Buffer, res: ServerResponse): boolean {
    const token = req.headers['x-app-token'];
    const ts = req.headers['x-app-access-ts'];
    const sig = req.headers['x-app-access-sig'];
    if (typeof token !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') {
      apiError(res, 401, 'App token, timestamp and signature headers are required');
      return false;
    }
    if (token !== appToken) {
      apiError(res, 401, 'Invalid app token');
      return false;
    }
    if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > maxSkew) {
      apiError(res, 401, 'Request timestamp is out of the allowed range');
      return false;
    }
    const expected = createHmac('sha256', secretKey)
      .update(ts + (req.method ?? '').toUpperCase() + path)
      .update(body)
      .digest('hex');
    if (!sameHex(expected, sig)) {
      apiError(res, 401, 'Request signature mismatch', {
        errorCode: 4003,
        errorName: 'app-token-signature mismatch',
      });
      return false;
    }
    return true;
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, body: Buffer): Promise<void> {
    const url = new URL(path, 'http://standin');
    const p = url.pathname;
    const method = req.method ?? 'GET';
    const match = (meth: string, re: RegExp) => (method === meth ? re.exec(p) : null);
    if (method === 'POST' && p === '/resources/applicants') {
      const level = levels.get(url.searchParams.get('levelName') ?? '');
      if (!level) return apiError(res, 404, `Level '${url.searchParams.get('levelName')}' not found`);
      const b = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      if (typeof b.externalUserId !== 'string' || !b.externalUserId)
        return apiError(res, 400, 'externalUserId is required');
      const existing = byExternalUserId(b.externalUserId);
      if (existing)
        return apiError(
          res,
          409,
          `Applicant with external user id '${b.externalUserId}' already exists: ${existing.id}`,
        );
      const a = newApplicant({
        level,
        externalUserId: b.externalUserId,
        email: typeof b.email === 'string' ? b.email : undefined,
        fixedInfo: b.fixedInfo as Record<string, unknown> | undefined,
        info: b.info as Record<string, unknown> | undefined,
        clientId: CLIENT_ID,
        now: new Date(),
      });
      if (b.type === 'company') a.type = 'company';
      applicants.set(a.id, a);
      await notify('applicantCreated', a);
      return json(res, applicantView(a));
    }
    const byExt = match('GET', /^\/resources\/applicants\/-;externalUserId=([^/]+)\/one$/);
    if (byExt) {
      const a = byExternalUserId(decodeURIComponent(byExt[1]!));
      return a && (!a.deleted || control.deactivatedFoundByExternalId)
        ? json(res, applicantView(a))
        : apiError(res, 404, 'Applicant not found');
    }
    if (method === 'GET' && p === '/resources/applicants/-/levels')
      return json(res, {
        list: { items: [...levels.values()].map((l) => ({ name: l.name, applicantType: l.applicantType })) },
      });
    const read = match('GET', /^\/resources\/applicants\/([0-9a-z]{24})\/(one|status|requiredIdDocsStatus)$/);
    if (read) {
      const a = applicants.get(read[1]!);
      if (!a) return apiError(res, 404, 'Applicant not found');
      if (read[2] === 'one') return json(res, applicantView(a));
      if (read[2] === 'status') return json(res, a.review);
      const steps: Record<string, unknown> = {};
      for (const name of levels.get(a.review.levelName)?.steps ?? []) steps[name] = a.steps[name] ?? null;
      return json(res, steps);
    }
    const test = match('POST', /^\/resources\/applicants\/([0-9a-z]{24})\/status\/testCompleted$/);
    if (test) {
      const a = applicants.get(test[1]!);
      if (!a) return apiError(res, 404, 'Applicant not found');
      const r = JSON.parse(body.toString('utf8') || '{}');
      if (r.reviewAnswer !== 'GREEN' && r.reviewAnswer !== 'RED')
        return apiError(res, 400, 'reviewAnswer must be GREEN or RED');
      if (a.review.reviewStatus === 'init')
        uploadDocuments(a, levels.get(a.review.levelName)!.steps, images, new Date());
      completeReview(a, r, new Date());
      await notify('applicantReviewed', a);
      return json(res, { ok: 1 });
    }
    if (method === 'POST' && p === '/resources/sdkIntegrations/levels/-/websdkLink') {
      const b = JSON.parse(body.toString('utf8') || '{}') as Record<string, any>;
      const level = levels.get(b.levelName ?? '');
      if (!level) return apiError(res, 404, `Level '${b.levelName}' not found`);
      if (typeof b.userId !== 'string') return apiError(res, 400, 'userId is required');
      let a = byExternalUserId(b.userId);
      if (!a) {
        a = newApplicant({
          level,
          externalUserId: b.userId,
          email: b.applicantIdentifiers?.email,
          clientId: CLIENT_ID,
          now: new Date(),
        });
        applicants.set(a.id, a);
      }
      const token = Math.random().toString(36).slice(2, 18);
      links.set(token, {
        applicantId: a.id,
        levelName: level.name,
        successUrl: b.redirect?.successUrl,
        rejectUrl: b.redirect?.rejectUrl,
      });
      return json(res, { url: `${baseUrl}/websdk/p/${token}` });
    }
    const aml = match('GET', /^\/resources\/api\/applicants\/([0-9a-z]{24})\/amlCase$/);
    if (aml) {
      const a = applicants.get(aml[1]!);
      if (!a?.amlCase) return apiError(res, 404, 'AML case not found');
      return json(res, a.amlCase);
    }
    // Changing data (reference/change-profile-data-details, change-provided-info-fixedinfo,
    // change-applicant-information-extracted-by-sumsub, change-provided-company-data, change-company-data).
    if (method === 'PATCH') {
      const b = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const given = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== null && v !== undefined));
      if (p === '/resources/applicants') {
        const a = applicants.get(String(b.id ?? ''));
        if (!a) return apiError(res, 404, 'Applicant not found');
        if (a.deleted) return apiError(res, 409, 'Applicant is deactivated', { errorCode: 1008 });
        if (typeof given.email === 'string') a.email = given.email;
        return json(res, applicantView(a));
      }
      const m =
        /^\/resources\/applicants\/([0-9a-z]{24})\/(fixedInfo|info|fixedInfo\/companyInfo|info\/companyInfo)$/.exec(
          p,
        );
      const a = m && applicants.get(m[1]!);
      if (!m || !a) return apiError(res, 404, m ? 'Applicant not found' : 'Not found');
      if (a.deleted) return apiError(res, 409, 'Applicant is deactivated', { errorCode: 1008 });
      const where = m[2]!;
      const company = where.endsWith('companyInfo');
      if (company !== (a.type === 'company'))
        return apiError(
          res,
          400,
          company ? 'Not a company applicant' : 'Use the company data methods for a company',
        );
      if (where === 'fixedInfo') a.fixedInfo = { ...(a.fixedInfo ?? {}), ...given };
      else if (where === 'info') a.info = { ...a.info, ...transliterated(given) };
      else if (where === 'fixedInfo/companyInfo')
        a.fixedInfo = {
          ...(a.fixedInfo ?? {}),
          companyInfo: { ...((a.fixedInfo?.companyInfo as object) ?? {}), ...given },
        };
      // KYB 1.0's companyInfo is replaced whole: "Null fields at the companyInfo will be unset".
      else a.info = { ...a.info, companyInfo: given };
      await notify('applicantPersonalInfoChanged', a);
      return json(res, company ? given : where === 'info' ? a.info : a.fixedInfo);
    }
    const move = match('POST', /^\/resources\/applicants\/([0-9a-z]{24})\/moveToLevel$/);
    if (move) {
      const a = applicants.get(move[1]!);
      if (!a) return apiError(res, 404, 'Applicant not found');
      const level = levels.get(url.searchParams.get('name') ?? '');
      if (!level) return apiError(res, 404, `Level '${url.searchParams.get('name')}' not found`);
      if (level.applicantType !== a.type)
        return apiError(res, 400, 'The level is not for this type of applicant');
      // "You will not be able to change the level if reviewStatus of the applicant is pending, queued or onHold."
      if (MID_REVIEW.includes(a.review.reviewStatus))
        return apiError(
          res,
          409,
          `Cannot change the level of an applicant in ${a.review.reviewStatus} status`,
        );
      if (a.review.levelName !== level.name) moveToLevel(a, level, new Date());
      return json(res, applicantView(a));
    }
    const reset = match('POST', /^\/resources\/applicants\/([0-9a-z]{24})\/reset$/);
    if (reset) {
      const a = applicants.get(reset[1]!);
      if (!a) return apiError(res, 404, 'Applicant not found');
      if (['pending', 'queued', 'prechecked'].includes(a.review.reviewStatus))
        return apiError(res, 409, 'Cannot reset an applicant that is being checked');
      await doReset(a);
      return json(res, { ok: 1 });
    }
    const image = match('GET', /^\/resources\/inspections\/([0-9a-z]{24})\/resources\/(\d+)$/);
    if (image) {
      const a = [...applicants.values()].find((x) => x.inspectionId === image[1]);
      const img = a?.images.find((i) => i.imageId === Number(image[2]));
      if (!img) return apiError(res, 404, 'Image not found');
      res.writeHead(200, { 'content-type': img.contentType, 'content-length': img.bytes.length });
      res.end(img.bytes);
      return;
    }
    return apiError(res, 404, 'Not found');
  }

  async function websdk(req: IncomingMessage, res: ServerResponse, token: string, body: Buffer) {
    const link = links.get(token);
    const a = link && applicants.get(link.applicantId);
    if (!link || !a)
      return html(res, 404, messagePage('Link not found', 'This verification link is not valid.'));
    // The WebSDK opened with a link of another level moves the applicant there (unless it is being
    // checked) and the review starts over at that level (reference/change-required-document-set-per-level).
    const linkLevel = levels.get(link.levelName);
    if (linkLevel && a.review.levelName !== linkLevel.name && !MID_REVIEW.includes(a.review.reviewStatus))
      moveToLevel(a, linkLevel, new Date());
    const steps = levels.get(a.review.levelName)?.steps ?? [];
    if (req.method !== 'POST') return html(res, 200, websdkPage(a, steps));
    if (isFinalRejected(a)) return html(res, 409, websdkPage(a, steps));
    const form = new URLSearchParams(body.toString('utf8'));
    const decision = form.get('decision') as Decision | null;
    if (!decision || !['approve', 'reject_retry', 'reject_final', 'review'].includes(decision))
      return html(res, 422, websdkPage(a, steps));
    await submit(a, decision, form.get('aml') === 'on');
    const to = a.review.reviewResult?.reviewAnswer === 'RED' ? link.rejectUrl : link.successUrl;
    if (to) {
      res.writeHead(303, { location: to });
      res.end();
      return;
    }
    return html(res, 200, messagePage('Thank you', 'Your documents were submitted.'));
  }

  const server = createServer(async (req, res) => {
    try {
      const path = req.url ?? '/';
      const body = await readBody(req);
      const page = /^\/websdk\/p\/([A-Za-z0-9]+)$/.exec(path.split('?')[0]!);
      if (page) return await websdk(req, res, page[1]!, body);
      if (!path.startsWith('/resources/')) return apiError(res, 404, 'Not found');
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      let parsed: unknown;
      try {
        parsed = body.length ? JSON.parse(body.toString('utf8')) : undefined;
      } catch {
        parsed = undefined;
      }
      const record = (status: number) =>
        requests.push({ method: req.method ?? 'GET', path, status, body: parsed });
      if (down) {
        record(503);
        return apiError(res, 503, 'Service unavailable');
      }
      const f = failures.find((x) => x.count > 0 && (!x.path || x.path.test(path)));
      if (f) {
        f.count--;
        f.meanwhile?.();
        record(f.status);
        if (f.retryAfter) res.setHeader('retry-after', f.retryAfter);
        return apiError(res, f.status, f.status === 429 ? 'Too many requests' : 'Internal error');
      }
      if (!checkSignature(req, path, body, res)) return record(401);
      await api(req, res, path, body);
      record(res.statusCode);
    } catch (err) {
      if (!res.headersSent) apiError(res, 500, `Stand-in error: ${(err as Error).message}`);
      else res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const control: SumsubStandinControl = {
    applicants,
    webhooks,
    requests,
    failNext: (f) => failures.push({ ...f }),
    setDown: (d) => {
      down = d;
    },
    setDelayMs: (ms) => {
      delayMs = ms;
    },
    decide: async (applicantId, decision, o) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      await submit(a, decision, o?.aml ?? false);
    },
    redecide: async (applicantId, decision, o) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      if (a.review.reviewStatus !== 'completed') throw new Error('only a completed review is re-decided');
      const result = reviewResultOf(decision, o?.aml ?? false);
      completeReview(a, result, new Date());
      a.amlCase = amlCaseOf(a, o?.aml ?? false, result.reviewAnswer, new Date());
      await notify('applicantReviewed', a);
    },
    reset: async (applicantId) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      await doReset(a);
    },
    byExternalUserId,
    moveLevel: (applicantId, levelName) => {
      const a = applicants.get(applicantId);
      const level = levels.get(levelName);
      if (!a || !level) throw new Error(`unknown applicant ${applicantId} or level ${levelName}`);
      moveToLevel(a, level, new Date());
    },
    correctInfo: async (applicantId, info) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      a.info = { ...a.info, ...transliterated(info) };
      await notify('applicantPersonalInfoChanged', a);
    },
    deactivate: async (applicantId) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      a.deleted = true;
      await notify('applicantDeactivated', a);
    },
    remove: async (applicantId) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      applicants.delete(applicantId);
      await notify('applicantDeleted', a);
    },
    reactivate: (applicantId) => {
      const a = applicants.get(applicantId);
      if (!a) throw new Error(`unknown applicant ${applicantId}`);
      a.deleted = false;
    },
    deactivatedFoundByExternalId: true,
    kybFlow: 'kyb1',
    createDate: 'check',
  };
  return {
    url: baseUrl,
    control,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '4020' },
      'app-token': { type: 'string' },
      'secret-key': { type: 'string' },
      'webhook-url': { type: 'string' },
      'webhook-secret': { type: 'string' },
    },
  });
  const s = await startSumsubStandin({
    port: Number(values.port),
    appToken: values['app-token'],
    secretKey: values['secret-key'],
    webhookUrl: values['webhook-url'] ?? null,
    webhookSecret: values['webhook-secret'],
  });
  process.stdout.write(`Sumsub stand-in listening on ${s.url}\n`);
}
