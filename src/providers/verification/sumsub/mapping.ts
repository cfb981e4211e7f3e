/**
 * A Sumsub applicant read onto the spec's verification record, field by field. Every choice the
 * documentation leaves open is numbered in docs/vendors/sumsub.md ("Ambiguities"); the numbers are
 * cited here. Raw Sumsub values (review statuses, labels, comments) never leave this module except
 * as the record's curated fields.
 */
import type { DocumentRef, RecordStatus, VerificationResult } from '../port';

export interface SumsubReviewResult {
  reviewAnswer?: string;
  rejectLabels?: string[];
  reviewRejectType?: string;
}

export interface SumsubApplicant {
  id: string;
  inspectionId: string;
  externalUserId: string;
  type?: string;
  createdAt?: string;
  email?: string;
  info?: Record<string, unknown>;
  fixedInfo?: Record<string, unknown>;
  questionnaires?: { id?: string; sections?: Record<string, { items?: Record<string, QItem> }> }[];
  /** `true` once the profile is deactivated (https://docs.sumsub.com/reference/deactivate-applicant-profile). */
  deleted?: boolean;
  review?: {
    attemptId?: string;
    attemptCnt?: number;
    levelName?: string;
    createDate?: string;
    reviewDate?: string;
    reviewStatus?: string;
    reviewResult?: SumsubReviewResult;
  };
}

interface QItem {
  value?: unknown;
  values?: unknown[];
}

export interface SumsubStep {
  reviewResult?: SumsubReviewResult | null;
  country?: string;
  idDocType?: string;
  imageIds?: number[];
}
export type SumsubSteps = Record<string, SumsubStep | null>;

export type KeyPerson = {
  name: string | null;
  role: string;
  positions: string[];
  nationality: string | null;
  ownership_percentage?: number;
};

/** Ambiguity 4: a revision that grows with every attempt and, within one, with the review's progress. */
const STATUS_RANK: Record<string, number> = {
  init: 0,
  pending: 1,
  prechecked: 2,
  queued: 3,
  onHold: 4,
  completed: 5,
};

export function revisionOf(a: SumsubApplicant): number {
  const r = a.review ?? {};
  return (r.attemptCnt ?? 0) * 10 + (STATUS_RANK[r.reviewStatus ?? ''] ?? 0);
}

/**
 * Ambiguity 4: Sumsub's own time of the review's state (`reviewDate` once completed, else
 * `createDate`, when the check was initiated) and what it says: level, attempt, status, answer,
 * reject type and labels. Sumsub promises no webhook order and says to trust the latest review on
 * the applicant (https://docs.sumsub.com/reference/get-applicant-review-status; docs/vendors/sumsub.md,
 * "Re-decisions"), and an officer or ongoing monitoring can change the answer within one attempt:
 * a result whose key differs is applied unless its time is older than the recorded one.
 */
export function versionOf(
  a: SumsubApplicant,
  now: Date,
): { at: Date; key: string; attempt: string; restart: boolean } {
  const r = a.review ?? {};
  const result = r.reviewResult ?? {};
  // Sumsub's times have whole seconds: a state without one (a deactivated applicant's) is dated to
  // the second too, so it never sorts after a review Sumsub completed later within the same second.
  const at =
    parseSumsubDate(r.reviewDate) ??
    parseSumsubDate(r.createDate) ??
    new Date(Math.floor(now.getTime() / 1000) * 1000);
  const labels = [...(result.rejectLabels ?? [])].sort().join(',');
  // `createDate` is "the applicant check was initiated" (reference/get-applicant-review-status);
  // an older version of the docs said "the profile was created", so it may not be renewed by a new
  // attempt or a reset: those are recognised by the attempt and the `init` status instead.
  const attempt = [r.levelName ?? '', r.attemptId ?? String(r.attemptCnt ?? 0)].join('|');
  const key = [
    attempt,
    r.reviewStatus ?? '',
    result.reviewAnswer ?? '',
    result.reviewRejectType ?? '',
    labels,
  ].join('|');
  return { at, key, attempt, restart: (r.reviewStatus ?? 'init') === 'init' };
}

/** Ambiguity 5. */
export function recordStatusOf(a: SumsubApplicant): RecordStatus {
  const r = a.review ?? {};
  switch (r.reviewStatus) {
    case 'init':
    case 'awaitingUser':
      return 'pending';
    case 'pending':
    case 'prechecked':
    case 'queued':
    case 'onHold':
    case 'awaitingService':
      return 'in_review';
    case 'completed':
      if (r.reviewResult?.reviewAnswer === 'GREEN') return 'approved';
      if (r.reviewResult?.reviewAnswer === 'RED') return 'declined';
      return 'unknown';
    default:
      return 'unknown';
  }
}

/** Sumsub dates: `YYYY-MM-DD HH:MI:SS` (GMT), optionally with `+0000`. */
export function parseSumsubDate(v: string | undefined): Date | null {
  if (!v) return null;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.\d+)?(?:([+-])(\d{2}):?(\d{2})|Z)?$/.exec(
    v.trim(),
  );
  if (!m) return null;
  const offset = m[3] ? `${m[3]}${m[4]}:${m[5]}` : 'Z';
  const d = new Date(`${m[1]}T${m[2]}${offset}`);
  return Number.isNaN(d.getTime()) ? null : d;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

const DOC_TYPES: Record<string, string> = {
  PASSPORT: 'passport',
  ID_CARD: 'id_card',
  DRIVERS: 'driving_licence',
  RESIDENCE_PERMIT: 'residence_permit',
};
const GENDERS: Record<string, string> = { M: 'male', F: 'female' };
const STEP_STATUS: Record<string, string> = { GREEN: 'passed', RED: 'failed' };
const POA_STATUS: Record<string, string> = { GREEN: 'approved', RED: 'declined' };
/**
 * Ambiguity 9: rejection labels of the "Compromised persons" group (AML screening findings):
 * ADVERSE_MEDIA, CRIMINAL, COMPROMISED_PERSONS, PEP, SANCTIONS
 * (https://docs.sumsub.com/reference/final-rejection); BLOCKLIST marks a person on the client's own
 * blocklist. There is no `AML` label.
 */
export const AML_LABELS = [
  'PEP',
  'SANCTIONS',
  'ADVERSE_MEDIA',
  'CRIMINAL',
  'COMPROMISED_PERSONS',
  'BLOCKLIST',
];

/**
 * The applicant's latest active AML case (`GET /resources/api/applicants/{id}/amlCase`,
 * https://docs.sumsub.com/reference/get-aml-case-data): `review.answer` GREEN / YELLOW / RED,
 * `riskLabels`, and `hits` (each with `id` and `name`), kept whether or not an officer cleared them.
 */
export interface SumsubAmlCase {
  id?: string;
  review?: { answer?: string } | null;
  riskLabels?: string[] | null;
  hits?: { id?: string; name?: string }[] | null;
}

function identityOf(a: SumsubApplicant, steps: SumsubSteps): VerificationResult['identity'] {
  const info = a.info ?? {};
  const idDocs = (Array.isArray(info.idDocs) ? info.idDocs : []) as Record<string, unknown>[];
  const step = steps.IDENTITY;
  // Ambiguity 7: the document the IDENTITY step approved, else the first one read.
  const doc =
    idDocs.find((d) => d.idDocType === step?.idDocType && (!step?.country || d.country === step.country)) ??
    idDocs[0];
  const first = str(info.firstNameEn) ?? str(info.firstName) ?? str(doc?.firstNameEn) ?? str(doc?.firstName);
  const last = str(info.lastNameEn) ?? str(info.lastName) ?? str(doc?.lastNameEn) ?? str(doc?.lastName);
  if (!first && !last && !doc) return null;
  const docType = str(doc?.idDocType);
  return {
    firstName: first,
    lastName: last,
    fullName: [first, last].filter(Boolean).join(' ') || null,
    dateOfBirth: str(info.dob) ?? str(doc?.dob),
    nationality: str(info.nationality) ?? str(info.country),
    documentType: docType ? (DOC_TYPES[docType] ?? docType.toLowerCase()) : null,
    documentIssuingCountry: str(doc?.country),
    documentExpiry: str(doc?.validUntil),
    gender: str(info.gender) ? (GENDERS[str(info.gender)!] ?? str(info.gender)!.toLowerCase()) : null,
    documentNumber: str(doc?.number),
  };
}

/** Ambiguity 8: a step's answer as a check status (no answer yet: still in review). */
const stepStatus = (s: SumsubStep | null | undefined, table: Record<string, string>) =>
  table[s?.reviewResult?.reviewAnswer ?? ''] ?? 'review';

function checksOf(
  a: SumsubApplicant,
  steps: SumsubSteps,
  asked: string[],
  amlCase: SumsubAmlCase | null,
): VerificationResult['checks'] {
  const checks: VerificationResult['checks'] = {};
  const selfie = steps.SELFIE;
  if (asked.includes('liveness') && selfie)
    checks.liveness = { status: stepStatus(selfie, STEP_STATUS), score: null };
  if (asked.includes('face_match') && selfie)
    checks.faceMatch = { status: stepStatus(selfie, STEP_STATUS), score: null };
  const poa = steps.PROOF_OF_RESIDENCE;
  if (asked.includes('poa') && poa) {
    const addr = ((a.info?.addresses as Record<string, unknown>[] | undefined) ?? [])[0] ?? {};
    checks.poa = {
      status: stepStatus(poa, POA_STATUS),
      details: {
        address_line1: str(addr.street),
        city: str(addr.town),
        postal_code: str(addr.postCode),
        country: str(addr.country),
        document_type: str(poa.idDocType)?.toLowerCase() ?? null,
      },
    };
  }
  if (asked.includes('aml') && a.review?.reviewStatus === 'completed') {
    const labels = (a.review.reviewResult?.rejectLabels ?? []).filter((l) => AML_LABELS.includes(l));
    // Ambiguity 9: the hits are the AML case's, cleared or not (the labels only name what rejected).
    const caseHits = Array.isArray(amlCase?.hits) ? amlCase.hits : [];
    const hits = caseHits.length
      ? caseHits.map((h, i) => ({
          hit_id: str(h.id) ?? `hit_${i + 1}`,
          name: str(h.name),
          risk_labels: Array.isArray(amlCase?.riskLabels) ? amlCase.riskLabels : [],
          source: 'sumsub',
        }))
      : labels.map((label, i) => ({ hit_id: `hit_${i + 1}`, list: label.toLowerCase(), source: 'sumsub' }));
    const risky = labels.length > 0 || amlCase?.review?.answer === 'RED';
    checks.aml = { status: risky ? 'potential_match' : 'clear', totalHits: hits.length, hits };
  }
  return checks;
}

/** Ambiguity 10: document roles from the steps' images (`<role>` for the first image, `<role>_2` …). */
export function documentImages(a: SumsubApplicant, steps: SumsubSteps): { role: string; imageId: number }[] {
  const out: { role: string; imageId: number }[] = [];
  const add = (role: string, ids: number[] | undefined) => {
    for (const [i, imageId] of (ids ?? []).entries())
      out.push({ role: i === 0 ? role : `${role}_${i + 1}`, imageId });
  };
  const idType = steps.IDENTITY?.idDocType;
  if (steps.IDENTITY)
    add(idType ? (DOC_TYPES[idType] ?? idType.toLowerCase()) : 'identity_document', steps.IDENTITY.imageIds);
  if (steps.SELFIE) add('selfie', steps.SELFIE.imageIds);
  if (steps.PROOF_OF_RESIDENCE) add('proof_of_address', steps.PROOF_OF_RESIDENCE.imageIds);
  if (steps.COMPANY) add('company_document', steps.COMPANY.imageIds);
  void a;
  return out;
}

/** The source-of-funds answers: item id -> value; file answers (image ids) listed under `files`. */
function questionnaireOf(a: SumsubApplicant, steps: SumsubSteps): Record<string, unknown> | null {
  const q = a.questionnaires?.[0];
  if (!q?.sections) return null;
  const fileIds = new Set((steps.QUESTIONNAIRE?.imageIds ?? []).map(String));
  const answers: Record<string, unknown> = {};
  const files: { qfile_id: string; file_name: string }[] = [];
  for (const section of Object.values(q.sections))
    for (const [itemId, item] of Object.entries(section.items ?? {})) {
      const v = item.values ?? item.value;
      if (typeof v === 'string' && fileIds.has(v)) files.push({ qfile_id: v, file_name: itemId });
      else answers[itemId] = v ?? null;
    }
  return { questionnaire_id: q.id ?? null, answers, files };
}

function companyOf(a: SumsubApplicant, steps: SumsubSteps, asked: string[], people: KeyPerson[] | null) {
  // Ambiguity 15: KYB 2.0 keeps companyInfo in fixedInfo, KYB 1.0 in info; what Sumsub recognised wins.
  const c = (a.info?.companyInfo ?? a.fixedInfo?.companyInfo ?? {}) as Record<string, unknown>;
  const registry = steps.COMPANY;
  return {
    companyName: str(c.companyName) ?? '',
    registrationNumber: str(c.registrationNumber),
    registrationCountry: str(c.country),
    companyType: str(c.type),
    incorporationDate: str(c.incorporatedOn),
    registryStatus: registry?.reviewResult?.reviewAnswer
      ? registry.reviewResult.reviewAnswer === 'GREEN'
        ? 'verified'
        : 'not_verified'
      : null,
    registryDetails:
      asked.includes('registry') && registry
        ? {
            legal_address: str(c.legalAddress),
            registration_location: str(c.registrationLocation),
            tax_id: str(c.taxId),
            website: str(c.website),
          }
        : null,
    keyPeople: asked.includes('key_people') ? people : null,
  };
}

export interface MapInput {
  providerRef: string;
  applicant: SumsubApplicant;
  steps: SumsubSteps;
  /** The checks our level asked for (a check is reported only when asked and run). */
  checks: string[];
  kind: 'kyc' | 'kyb';
  keyPeople: KeyPerson[] | null;
  /** The AML case, read when the level asked for AML and the review completed. */
  amlCase?: SumsubAmlCase | null;
  now: Date;
}

export function toVerificationResult(input: MapInput): VerificationResult {
  const { applicant: a, steps } = input;
  const status = recordStatusOf(a);
  const completed = a.review?.reviewStatus === 'completed';
  const decisionAt = completed ? parseSumsubDate(a.review?.reviewDate) : null;
  const version = versionOf(a, input.now);
  const documents: DocumentRef[] = documentImages(a, steps).map((d) => ({
    file_role: d.role,
    file_name: d.role,
    // Ambiguity 10: the type is known only when the image is downloaded.
    content_type: 'application/octet-stream',
  }));
  return {
    providerRef: input.providerRef,
    status,
    revision: revisionOf(a),
    updatedAt: version.at,
    version,
    decisionAt,
    // Ambiguity 6: only a completed GREEN review vouches for the data.
    dataTrusted: status === 'approved',
    // Ambiguity 14: FINAL means no retry.
    final: status === 'declined' && a.review?.reviewResult?.reviewRejectType === 'FINAL',
    identity: input.kind === 'kyc' ? identityOf(a, steps) : null,
    checks: checksOf(a, steps, input.checks, input.amlCase ?? null),
    sofQuestionnaire:
      input.kind === 'kyc' && input.checks.includes('sof_questionnaire') ? questionnaireOf(a, steps) : null,
    documents,
    company: input.kind === 'kyb' ? companyOf(a, steps, input.checks, input.keyPeople) : null,
  };
}
