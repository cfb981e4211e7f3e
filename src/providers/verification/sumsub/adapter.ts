/**
 * The Sumsub adapter behind the VerificationProvider port (see docs/vendors/sumsub.md and
 * docs/going-live-sumsub.md). One active Sumsub applicant per user or business customer
 * (`externalUserId` = `svc-kyc-<user id>` / `svc-kyb-<business id>`, then `-2`, `-3`, … after a
 * deactivation), reused by every link; a
 * session's reference is `<applicantId>:<verification id>`. Results are always read from the
 * applicant; webhooks are only hints. Files are fetched from Sumsub when downloaded, never stored.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import {
  type ConsentAcceptance,
  type ConsentDisclosure,
  type CreateVerificationInput,
  type DownloadedFile,
  type SessionContext,
  type VerificationKind,
  type VerificationNotification,
  type VerificationProvider,
  VerificationProviderError,
  type VerificationReconcile,
  type VerificationResult,
  type VerificationSubject,
} from '../port';
import { SumsubApiError, type SumsubClient } from './client';
import type { SumsubConfig } from './config';
import { toAlpha3 } from './countries';
import {
  documentImages,
  type KeyPerson,
  type SumsubAmlCase,
  type SumsubApplicant,
  type SumsubSteps,
  toVerificationResult,
  versionOf,
} from './mapping';

export const externalUserIdOf = (kind: VerificationKind, subjectId: string) => `svc-${kind}-${subjectId}`;
/** The person's `generation`-th profile: the base id, then `<base>-2`, `<base>-3`, … */
const chainId = (base: string, generation: number) => (generation === 1 ? base : `${base}-${generation}`);
const isOfChain = (externalUserId: string | undefined, base: string) =>
  externalUserId === base || new RegExp(`^${base.replace(/[-]/g, '\\-')}-\\d+$`).test(externalUserId ?? '');
const MAX_KEY_PEOPLE = 20;
/** How many deactivated applicants of one person are walked past before giving up. */
const MAX_APPLICANT_GENERATIONS = 20;
/** Review statuses in which Sumsub is checking the applicant (its level cannot be changed). */
const MID_REVIEW = new Set(['pending', 'prechecked', 'queued', 'onHold']);
/** Ambiguity 1: the documented default, and SHA512; legacy SHA1 is refused. */
const DIGEST_ALGS: Record<string, string> = { HMAC_SHA256_HEX: 'sha256', HMAC_SHA512_HEX: 'sha512' };
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/pdf': 'pdf',
  'image/webp': 'webp',
};

/**
 * Whether the applicant's data may be completed now: not while Sumsub checks it, not once the
 * check is complete with GREEN or a FINAL rejection (a RETRY rejection is resubmitted by the person).
 */
function takesData(a: SumsubApplicant): boolean {
  const review = a.review ?? {};
  const status = review.reviewStatus ?? 'init';
  if (MID_REVIEW.has(status)) return false;
  if (status !== 'completed') return true;
  const result = review.reviewResult ?? {};
  return result.reviewAnswer === 'RED' && result.reviewRejectType !== 'FINAL';
}

export function parseProviderRef(ref: string): { applicantId: string; verificationId: string } | null {
  const m = /^([0-9a-z]{24}):([0-9a-f-]{36})$/.exec(ref);
  return m ? { applicantId: m[1]!, verificationId: m[2]! } : null;
}

const header = (h: Record<string, string | string[] | undefined>, name: string) => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

export class SumsubVerificationProvider implements VerificationProvider {
  readonly name = 'sumsub';
  /** Sumsub's webhooks can be lost: open sessions and approved subjects are read again (SVC_SUMSUB_RECONCILE_AFTER_SECONDS, SVC_SUMSUB_RECHECK_APPROVED_SECONDS). */
  get reconcile(): VerificationReconcile {
    return {
      afterSeconds: this.config.reconcileAfterSeconds ?? 3600,
      recheckApprovedSeconds: this.config.recheckApprovedSeconds ?? 86400,
    };
  }

  constructor(
    private readonly client: SumsubClient,
    private readonly config: Pick<SumsubConfig, 'levels' | 'webhookSecret' | 'websdkLinkTtlSeconds'> &
      Partial<Pick<SumsubConfig, 'kybFlow' | 'consent' | 'reconcileAfterSeconds' | 'recheckApprovedSeconds'>>,
    private readonly now: () => Date = () => new Date(),
    private readonly log?: { warn(obj: object, msg: string): void },
  ) {}

  /** Ambiguity 13: our level -> Sumsub level; an unmapped custom level gets the widest of its kind. */
  sumsubLevel(kind: VerificationKind, level: string): string {
    const widest = kind === 'kyc' ? 'enhanced' : 'kyb-standard';
    return this.config.levels[level.toLowerCase()] ?? this.config.levels[widest]!;
  }

  async createSession(input: CreateVerificationInput): Promise<{ providerRef: string }> {
    const s = input.subject;
    const levelName = this.sumsubLevel(s.kind, input.level);
    try {
      const applicant = await this.currentApplicant(
        externalUserIdOf(s.kind, input.subjectId),
        levelName,
        s.kind,
        parseProviderRef(input.previousProviderRef ?? '')?.applicantId ?? null,
      );
      return { providerRef: `${applicant.id}:${input.verificationId}` };
    } catch (err) {
      throw refusal(err);
    }
  }

  /**
   * The person's applicant, created when they have no active one. A deactivated applicant
   * (`deleted: true`) is never reused: Sumsub makes it "as if it never existed", allows no change to
   * it, and the person "will have to resubmit their personal details from scratch" in a new profile
   * (https://docs.sumsub.com/reference/deactivate-applicant-profile,
   * https://docs.sumsub.com/docs/make-applicant-profile-inactive). Whether Sumsub accepts the same
   * `externalUserId` for the new profile is not documented, so the person's next profile is keyed
   * `<externalUserId>-2` (then `-3`, …): deterministic, so a repeated call finds what an earlier one
   * created.
   *
   * Which one: the applicant of the person's latest link while it is active (`knownId`), else the
   * newest active profile of the chain (an officer may reactivate an old one: two active profiles
   * are logged, the newest is used, so the person is not split further), else a new one at the
   * first free number. A number whose create answers 409 but whose profile cannot be read (a
   * deactivated profile may answer 404 by externalUserId) is taken: the next number is tried.
   */
  private async currentApplicant(
    base: string,
    levelName: string,
    kind: VerificationKind,
    knownId: string | null,
  ): Promise<SumsubApplicant> {
    if (knownId) {
      const known = await this.readApplicant(knownId);
      if (known && known.deleted !== true && isOfChain(known.externalUserId, base)) return known;
    }
    const active: SumsubApplicant[] = [];
    let generation = 1;
    for (; generation <= MAX_APPLICANT_GENERATIONS; generation++) {
      const found = await this.applicantByExternalId(chainId(base, generation));
      if (!found) break;
      if (found.deleted !== true) active.push(found);
    }
    if (active.length > 1)
      this.log?.warn(
        { externalUserId: base, applicantIds: active.map((a) => a.id) },
        'more than one active Sumsub applicant for one person: the newest is used',
      );
    if (active.length) return active.at(-1)!;
    for (; generation <= MAX_APPLICANT_GENERATIONS; generation++) {
      const created = await this.createApplicant(chainId(base, generation), levelName, kind);
      if (created && created.deleted !== true) return created;
    }
    throw new VerificationProviderError(
      `more than ${MAX_APPLICANT_GENERATIONS} deactivated Sumsub applicants for one person`,
    );
  }

  private applicantByExternalId(externalUserId: string) {
    return this.client.json<SumsubApplicant>({
      operation: 'applicants.get_by_external_id',
      method: 'GET',
      path: `/resources/applicants/-;externalUserId=${encodeURIComponent(externalUserId)}/one`,
      retrySafe: true,
    });
  }

  /**
   * Keyed by externalUserId (Sumsub refuses a second applicant for it), so a repeat cannot duplicate.
   * Created lean: `externalUserId`, `type` and the level only. Sumsub must not receive personal data
   * before the person accepted the disclosure
   * (https://docs.sumsub.com/docs/applicant-privacy-disclosures-and-consent-requirements); names,
   * email and company data are sent by sendPersonalData once they have, on our hosted page.
   */
  private async createApplicant(
    externalUserId: string,
    levelName: string,
    kind: VerificationKind,
  ): Promise<SumsubApplicant | null> {
    const body = { externalUserId, type: kind === 'kyc' ? 'individual' : 'company' };
    try {
      const created = await this.client.json<SumsubApplicant>({
        operation: 'applicants.create',
        method: 'POST',
        path: `/resources/applicants?levelName=${encodeURIComponent(levelName)}`,
        body,
        retrySafe: true,
      });
      if (!created) throw new VerificationProviderError(`Sumsub level not found: ${levelName}`);
      return created;
    } catch (err) {
      // A repeat after an unanswered first attempt: the applicant exists, read it (a deactivated
      // one is skipped by the caller).
      // Nothing readable behind a taken externalUserId (a deactivated profile answering 404):
      // null, the caller moves on to the next number.
      if (err instanceof SumsubApiError && err.status === 409)
        return await this.applicantByExternalId(externalUserId);
      throw err;
    }
  }

  /**
   * The person's data, sent after they accepted the disclosure (see createApplicant). Sumsub's data
   * are never overwritten: only what Sumsub does not hold yet is sent (blanks filled), and nothing
   * at all while the applicant is being checked (`pending`, `queued`, `onHold`, `prechecked`) or once
   * its check is complete (GREEN, or RED with a FINAL rejection): a change of the checked data would
   * need a new review ("if you need to re-check the applicant once the information has been
   * changed, you need to revert the applicant status to pending",
   * https://docs.sumsub.com/reference/change-provided-info-fixedinfo).
   * - names: `PATCH /resources/applicants/{id}/fixedInfo` (not for companies);
   * - email: `PATCH /resources/applicants` with `{id, email}`, only when Sumsub has none
   *   (https://docs.sumsub.com/reference/change-profile-data-details);
   * - company, KYB 2.0: `PATCH /resources/applicants/{id}/fixedInfo/companyInfo` with the missing
   *   fields only ("submitting new information will overwrite the previously stored data. To retain
   *   current values, omit those fields", https://docs.sumsub.com/reference/change-provided-company-data);
   *   KYB 1.0: `PATCH /resources/applicants/{id}/info/companyInfo`, which unsets every field left out
   *   (https://docs.sumsub.com/reference/change-company-data): the applicant's companyInfo is sent
   *   whole with only our missing fields added, and nothing when Sumsub already has them all.
   */
  private async sendPersonalData(applicant: SumsubApplicant, s: VerificationSubject): Promise<void> {
    if (!takesData(applicant)) return;
    const patch = (operation: string, path: string, body: Record<string, unknown>) =>
      this.client.json<unknown>({ operation, method: 'PATCH', path, body, retrySafe: true });
    const blank = (v: unknown) => v === null || v === undefined || v === '';
    /** Our non-blank fields that Sumsub holds no value for. */
    const missing = (have: Record<string, unknown> | undefined, want: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(want).filter(([k, v]) => !blank(v) && blank(have?.[k])));
    if (s.email && blank(applicant.email))
      await patch('applicants.change_profile', '/resources/applicants', { id: applicant.id, email: s.email });
    if (s.kind === 'kyc') {
      const names = missing(applicant.fixedInfo, { firstName: s.firstName, lastName: s.lastName });
      if (Object.keys(names).length)
        await patch('applicants.change_fixed_info', `/resources/applicants/${applicant.id}/fixedInfo`, names);
      return;
    }
    const company = {
      companyName: s.companyName,
      registrationNumber: s.registrationNumber,
      // Sumsub wants ISO alpha-3 (reference/import-applicants, companyInfo): alpha-2 is converted.
      country: toAlpha3(s.country),
    };
    if (this.kybFlow === 'kyb2') {
      const diff = missing(applicant.fixedInfo?.companyInfo as Record<string, unknown> | undefined, company);
      if (Object.keys(diff).length)
        await patch(
          'applicants.change_company_info',
          `/resources/applicants/${applicant.id}/fixedInfo/companyInfo`,
          diff,
        );
      return;
    }
    const have = (applicant.info?.companyInfo ?? {}) as Record<string, unknown>;
    const add = missing(have, company);
    if (Object.keys(add).length)
      await patch(
        'applicants.change_company_info',
        `/resources/applicants/${applicant.id}/info/companyInfo`,
        {
          ...have,
          ...add,
        },
      );
  }

  get consent(): ConsentDisclosure | undefined {
    return this.config.consent;
  }

  /**
   * Called by our hosted page after the person accepted the disclosure (POST, never on a GET: a mail
   * scanner following the link changes nothing at Sumsub): sends their data, moves the applicant to
   * the link's level, and answers a fresh WebSDK link.
   */
  async hostedVerificationUrl(
    providerRef: string,
    input: {
      level: string;
      kind: VerificationKind;
      subject: VerificationSubject;
      consent: ConsentAcceptance | null;
      returnUrl: string;
    },
  ): Promise<string> {
    const ref = parseProviderRef(providerRef);
    if (!ref) throw new VerificationProviderError('not a Sumsub session reference');
    if (this.config.consent && !input.consent)
      throw new VerificationProviderError('the person has not accepted the disclosure');
    const applicant = await this.readApplicant(ref.applicantId);
    // A deactivated applicant takes no data and no link: the person needs a new link (a new applicant).
    if (!applicant || applicant.deleted === true)
      throw new VerificationProviderError('the Sumsub applicant no longer exists or was deactivated', {
        code: 'withdrawn',
      });
    const levelName = this.sumsubLevel(input.kind, input.level);
    try {
      await this.sendPersonalData(applicant, input.subject);
    } catch (err) {
      // Refused because the applicant's check started or completed since it was read: the data
      // step is skipped (Sumsub keeps what it checked), the person still gets their WebSDK link.
      const now = err instanceof SumsubApiError ? await this.readApplicant(ref.applicantId) : null;
      if (!now || takesData(now)) throw refusal(err);
    }
    await this.moveToLevel(applicant, levelName);
    const res = await this.client
      .json<{ url?: string }>({
        operation: 'websdk.link',
        method: 'POST',
        path: '/resources/sdkIntegrations/levels/-/websdkLink',
        body: {
          levelName,
          userId: applicant.externalUserId,
          ...(input.subject.email ? { applicantIdentifiers: { email: input.subject.email } } : {}),
          ttlInSecs: this.config.websdkLinkTtlSeconds,
          redirect: { successUrl: input.returnUrl, rejectUrl: input.returnUrl },
        },
        retrySafe: true,
      })
      .catch((err) => {
        throw refusal(err);
      });
    if (!res?.url || !/^https?:\/\//.test(res.url))
      throw new VerificationProviderError('Sumsub gave no WebSDK link');
    return res.url;
  }

  /**
   * The applicant is reused for every link: a link of another level moves it there first
   * (`POST /resources/applicants/{id}/moveToLevel?name=`), which Sumsub refuses while the
   * applicant is being checked (`pending`, `queued`, `onHold`; `prechecked` is part of the check)
   * (https://docs.sumsub.com/reference/change-required-document-set-per-level). Mid-review the
   * applicant stays where it is: its review finishes at its level, and this link's session gets no
   * result until a review at its own level (see fetchResult).
   */
  private async moveToLevel(applicant: SumsubApplicant, levelName: string): Promise<void> {
    const review = applicant.review ?? {};
    if (review.levelName === levelName || MID_REVIEW.has(review.reviewStatus ?? '')) return;
    try {
      await this.client.json<SumsubApplicant>({
        operation: 'applicants.move_to_level',
        method: 'POST',
        path: `/resources/applicants/${applicant.id}/moveToLevel?name=${encodeURIComponent(levelName)}`,
        body: {},
        retrySafe: true,
      });
    } catch (err) {
      throw refusal(err);
    }
  }

  private readApplicant(applicantId: string) {
    return this.client.json<SumsubApplicant>({
      operation: 'applicants.get',
      method: 'GET',
      path: `/resources/applicants/${applicantId}/one`,
      retrySafe: true,
    });
  }

  /** The latest active AML case (null when none); rate-limited by Sumsub to 10 requests a minute. */
  private amlCase(applicantId: string) {
    return this.client.json<SumsubAmlCase>({
      operation: 'applicants.aml_case',
      method: 'GET',
      path: `/resources/api/applicants/${applicantId}/amlCase`,
      retrySafe: true,
    });
  }

  private async readSteps(applicantId: string): Promise<SumsubSteps> {
    return (
      (await this.client.json<SumsubSteps>({
        operation: 'applicants.steps',
        method: 'GET',
        path: `/resources/applicants/${applicantId}/requiredIdDocsStatus`,
        retrySafe: true,
      })) ?? {}
    );
  }

  private get kybFlow() {
    return this.config.kybFlow ?? 'kyb2';
  }

  /**
   * Ambiguity 11: the company's beneficiaries. KYB 2.0 keeps them in `fixedInfo.companyInfo.beneficiaries`
   * with `types[]`, `shareSize`, and either `applicantId` (a person with a profile of their own) or
   * `beneficiaryInfo` (names only, no profile)
   * (https://docs.sumsub.com/reference/link-beneficiary-to-company-kyb-20); KYB 1.0 in
   * `info.companyInfo.beneficiaries` with one `type` and `positions`
   * (https://docs.sumsub.com/reference/link-beneficiary-to-company-kyb-10). The configured flow's place
   * is read first, the other one when it has none.
   */
  private async keyPeople(a: SumsubApplicant): Promise<KeyPerson[]> {
    const listOf = (c: unknown) => {
      const b = (c as { beneficiaries?: unknown } | undefined)?.beneficiaries;
      return Array.isArray(b) && b.length ? (b as Record<string, unknown>[]) : null;
    };
    const kyb2 = listOf(a.fixedInfo?.companyInfo);
    const kyb1 = listOf(a.info?.companyInfo);
    const list = ((this.kybFlow === 'kyb2' ? (kyb2 ?? kyb1) : (kyb1 ?? kyb2)) ?? []).slice(0, MAX_KEY_PEOPLE);
    return Promise.all(
      list.map(async (b) => {
        const person = typeof b.applicantId === 'string' ? await this.readApplicant(b.applicantId) : null;
        const given = (b.beneficiaryInfo ?? {}) as Record<string, unknown>;
        const info = { ...given, ...(person?.fixedInfo ?? {}), ...(person?.info ?? {}) } as Record<
          string,
          unknown
        >;
        const name = [info.firstNameEn ?? info.firstName, info.lastNameEn ?? info.lastName]
          .filter(Boolean)
          .join(' ');
        const types = Array.isArray(b.types)
          ? (b.types as string[]).filter((t) => typeof t === 'string')
          : [];
        const role = typeof b.type === 'string' ? b.type : (types[0] ?? 'other');
        const positions = Array.isArray(b.positions)
          ? (b.positions as string[])
          : types.filter((t) => t !== role);
        return {
          name: name || null,
          role,
          positions,
          nationality: (info.nationality ?? info.country ?? null) as string | null,
          ...(typeof b.shareSize === 'number' ? { ownership_percentage: b.shareSize } : {}),
        };
      }),
    );
  }

  async fetchResult(providerRef: string, session?: SessionContext): Promise<VerificationResult | null> {
    const ref = parseProviderRef(providerRef);
    if (!ref) return null;
    const read = await this.readApplicant(ref.applicantId);
    // Row 14 (docs/vendors/sumsub.md, "Deactivated or deleted applicants"): a deactivated profile
    // (`deleted: true`, https://docs.sumsub.com/reference/deactivate-applicant-profile: "as if it
    // never existed", the person resubmits from scratch) or one Sumsub no longer has (404, deleted)
    // no longer verifies anyone: a recorded session becomes `pending`, data not trusted, as a reset.
    const withdrawn = !read || read.deleted === true;
    if (withdrawn && !session?.recorded) return null;
    const applicant: SumsubApplicant | null = withdrawn
      ? {
          id: ref.applicantId,
          inspectionId: read?.inspectionId ?? '',
          externalUserId: read?.externalUserId ?? '',
          type: read?.type,
          review: {
            levelName: session?.level
              ? this.sumsubLevel(session.kind, session.level)
              : read?.review?.levelName,
            attemptId: read ? 'deactivated' : 'deleted',
            reviewStatus: 'init',
          },
        }
      : read;
    if (!applicant) return null;
    const kind: VerificationKind = session?.kind ?? (applicant.type === 'company' ? 'kyb' : 'kyc');
    // The applicant serves every link of the person; its review is this session's only at the
    // session's level: `attemptCnt` counts attempts "on the same verification level"
    // (https://docs.sumsub.com/reference/get-applicant-review-status). An approval at `basic`
    // never approves an `enhanced` link, and a later link's level leaves an older record alone.
    // A result that undoes a verification is not level-bound: a completed RED, or a reset
    // announced by `applicantReset`, decided at a level we hold no link for (a level moved by a
    // workflow, an officer or the dashboard) applies to the subject's latest link, so an approved
    // subject is no longer verified. A GREEN only approves the session of its own level.
    const status = applicant.review?.reviewStatus ?? 'init';
    const red = status === 'completed' && applicant.review?.reviewResult?.reviewAnswer === 'RED';
    const reset = status === 'init' && session?.notice === 'applicantReset' && session.recorded === true;
    const undoes = session?.latest === true && (red || reset || withdrawn);
    if (session?.level && applicant.review?.levelName !== this.sumsubLevel(kind, session.level) && !undoes)
      return null;
    // Nothing submitted yet: no result, so an unused link leaves no record behind. A session that
    // has a record and is back at `init` was reset (documents inactive, statuses removed:
    // https://docs.sumsub.com/reference/reset-applicant): that is recorded (pending).
    if (status === 'init' && !session?.recorded) return null;
    const steps = withdrawn ? {} : await this.readSteps(ref.applicantId);
    const checks = session?.checks ?? [];
    return toVerificationResult({
      providerRef,
      applicant,
      steps,
      checks,
      kind,
      keyPeople: kind === 'kyb' && checks.includes('key_people') ? await this.keyPeople(applicant) : null,
      // The AML case is rate-limited to 10 requests a minute (https://docs.sumsub.com/reference/rate-limits,
      // docs/vendors/sumsub.md): it is read once per review state, not again when the recorded
      // state is unchanged (the service then applies nothing anyway).
      amlCase:
        checks.includes('aml') &&
        !withdrawn &&
        applicant.review?.reviewStatus === 'completed' &&
        versionOf(applicant, this.now()).key !== session?.recordedVersion
          ? await this.amlCase(ref.applicantId)
          : null,
      now: this.now(),
    });
  }

  private async downloadImage(
    inspectionId: string,
    imageId: number,
    baseName: string,
  ): Promise<DownloadedFile> {
    const res = await this.client.send({
      operation: 'images.get',
      method: 'GET',
      path: `/resources/inspections/${inspectionId}/resources/${imageId}`,
      retrySafe: true,
    });
    if (res.status === 404) throw new VerificationProviderError('image not found at Sumsub');
    const contentType = (res.headers['content-type'] ?? 'application/octet-stream').split(';')[0]!.trim();
    const ext = EXTENSIONS[contentType];
    return { fileName: ext ? `${baseName}.${ext}` : baseName, contentType, bytes: res.body };
  }

  async fetchDocument(providerRef: string, fileRole: string): Promise<DownloadedFile | null> {
    const ref = parseProviderRef(providerRef);
    const applicant = ref && (await this.readApplicant(ref.applicantId));
    if (!ref || !applicant) return null;
    const image = documentImages(applicant, await this.readSteps(ref.applicantId)).find(
      (d) => d.role === fileRole,
    );
    return image
      ? this.downloadImage(applicant.inspectionId, image.imageId, fileRole.replace(/_/g, '-'))
      : null;
  }

  async fetchQuestionnaireFile(providerRef: string, qfileId: string): Promise<DownloadedFile | null> {
    const ref = parseProviderRef(providerRef);
    const applicant = ref && (await this.readApplicant(ref.applicantId));
    if (!ref || !applicant || !/^\d+$/.test(qfileId)) return null;
    const steps = await this.readSteps(ref.applicantId);
    if (!(steps.QUESTIONNAIRE?.imageIds ?? []).includes(Number(qfileId))) return null;
    return this.downloadImage(applicant.inspectionId, Number(qfileId), `questionnaire-${qfileId}`);
  }

  /** `x-payload-digest` = hex HMAC of the raw body with the webhook secret, algorithm in `x-payload-digest-alg`. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): VerificationNotification | null {
    const alg = DIGEST_ALGS[header(headers, 'x-payload-digest-alg') ?? 'HMAC_SHA256_HEX'];
    const given = header(headers, 'x-payload-digest');
    if (!alg || !given || !/^[0-9a-f]+$/i.test(given)) return null;
    const expected = createHmac(alg, this.config.webhookSecret).update(rawBody).digest();
    const got = Buffer.from(given, 'hex');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) return null;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return null;
    }
    if (!body || typeof body.applicantId !== 'string' || typeof body.type !== 'string') return null;
    const at =
      typeof body.createdAtMs === 'string' ? new Date(`${body.createdAtMs.replace(' ', 'T')}Z`) : null;
    return {
      // Ambiguity 3: no event id; a resend is byte-identical.
      eventId: createHash('sha256').update(rawBody).digest('hex'),
      providerRef: body.applicantId,
      status: typeof body.reviewStatus === 'string' ? body.reviewStatus : body.type,
      revision: 0,
      occurredAt: at && !Number.isNaN(at.getTime()) ? at : this.now(),
      scope: 'applicant',
      type: body.type,
      // Sumsub marks webhooks of its sandbox (`sandboxMode`); a production deployment ignores them.
      sandbox: body.sandboxMode === true,
    };
  }
}

/**
 * Outages are already the port's VerificationUnavailableError (client.ts; the caller answers 503);
 * Sumsub's refusals become provider errors.
 */
function refusal(err: unknown): Error {
  if (err instanceof VerificationProviderError) return err;
  if (err instanceof SumsubApiError) return new VerificationProviderError(err.message, { cause: err });
  return err as Error;
}
