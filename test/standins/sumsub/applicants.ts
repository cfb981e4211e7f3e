/**
 * The Sumsub stand-in's applicants, levels and their state machine. Shapes follow Sumsub's API
 * reference (see docs/vendors/sumsub.md for the page behind each field): the applicant object of
 * "Get applicant data" (reference/get-applicant-data), the review of "Get applicant review status"
 * (reference/get-applicant-review-status), the per-step breakdown of "Get applicant verification
 * steps status" (reference/get-applicant-verification-steps-status), companyInfo of
 * "Create applicant" / "Import applicants" (reference/create-applicant, reference/import-applicants)
 * and questionnaire answers of reference/add-applicant-action-questionnaire.
 */
import { randomBytes } from 'node:crypto';

export type StepName = 'IDENTITY' | 'SELFIE' | 'PROOF_OF_RESIDENCE' | 'QUESTIONNAIRE' | 'COMPANY';

export interface StandinLevel {
  name: string;
  applicantType: 'individual' | 'company';
  steps: StepName[];
}

/** Levels the stand-in knows by default (a real account has whatever its dashboard defines). */
export const DEFAULT_LEVELS: StandinLevel[] = [
  { name: 'basic-kyc-level', applicantType: 'individual', steps: ['IDENTITY', 'SELFIE'] },
  { name: 'standard-kyc-level', applicantType: 'individual', steps: ['IDENTITY', 'SELFIE'] },
  {
    name: 'enhanced-kyc-level',
    applicantType: 'individual',
    steps: ['IDENTITY', 'SELFIE', 'PROOF_OF_RESIDENCE', 'QUESTIONNAIRE'],
  },
  { name: 'basic-kyb-level', applicantType: 'company', steps: ['COMPANY'] },
  { name: 'standard-kyb-level', applicantType: 'company', steps: ['COMPANY'] },
];

export type ReviewAnswer = 'GREEN' | 'RED';
export type RejectType = 'RETRY' | 'FINAL';

export interface ReviewResult {
  reviewAnswer: ReviewAnswer;
  rejectLabels?: string[];
  reviewRejectType?: RejectType;
  moderationComment?: string;
  clientComment?: string;
}

/** reference/get-applicant-review-status, root variables. */
export interface Review {
  reviewId: string;
  attemptId: string;
  attemptCnt: number;
  elapsedSincePendingMs?: number;
  levelName: string;
  createDate: string;
  reviewDate?: string;
  reviewResult?: ReviewResult;
  reviewStatus: 'init' | 'pending' | 'prechecked' | 'queued' | 'completed' | 'onHold';
  priority: number;
}

export interface StoredImage {
  imageId: number;
  contentType: string;
  bytes: Buffer;
}

export interface StepStatus {
  reviewResult?: ReviewResult;
  country?: string;
  idDocType?: string;
  imageIds: number[];
}

export interface Applicant {
  id: string;
  createdAt: string;
  /** `true` once deactivated (reference/deactivate-applicant-profile). */
  deleted?: boolean;
  key: string;
  clientId: string;
  inspectionId: string;
  externalUserId: string;
  email?: string;
  type: 'individual' | 'company';
  info: Record<string, unknown>;
  fixedInfo?: Record<string, unknown>;
  requiredIdDocs: { docSets: { idDocSetType: string; types: string[] }[] };
  review: Review;
  questionnaires?: Record<string, unknown>[];
  /** Not part of the API object: the per-step breakdown and the images (served by their own routes). */
  steps: Partial<Record<StepName, StepStatus>>;
  images: StoredImage[];
  /** The latest AML case (reference/get-aml-case-data), served by its own route. */
  amlCase?: Record<string, unknown>;
}

const hex = (n: number) => randomBytes(n).toString('hex');
/** Sumsub ids: 24 characters, digits and lower-case letters (reference/get-applicant-data, `id`). */
export const newApplicantId = () => hex(12);
export const shortAttemptId = () => randomBytes(4).toString('base64url').slice(0, 5);

/** `YYYY-MM-DD HH:MI:SS` (GMT), as `createdAt`; review dates add `+0000`. */
export const sumsubTime = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 19);
export const reviewTime = (d: Date) => `${sumsubTime(d)}+0000`;

const DOC_TYPES: Record<StepName, string[]> = {
  IDENTITY: ['PASSPORT', 'ID_CARD', 'DRIVERS', 'RESIDENCE_PERMIT'],
  SELFIE: ['SELFIE'],
  PROOF_OF_RESIDENCE: ['UTILITY_BILL'],
  QUESTIONNAIRE: ['QUESTIONNAIRE'],
  COMPANY: ['COMPANY_DOC'],
};

export function newApplicant(input: {
  level: StandinLevel;
  externalUserId: string;
  email?: string;
  fixedInfo?: Record<string, unknown>;
  info?: Record<string, unknown>;
  clientId: string;
  now: Date;
}): Applicant {
  const id = newApplicantId();
  return {
    id,
    createdAt: sumsubTime(input.now),
    key: 'STANDINKEY',
    clientId: input.clientId,
    inspectionId: id,
    externalUserId: input.externalUserId,
    email: input.email,
    type: input.level.applicantType,
    info: input.info ?? {},
    fixedInfo: input.fixedInfo,
    requiredIdDocs: docSetsOf(input.level),
    review: {
      reviewId: shortAttemptId(),
      attemptId: shortAttemptId(),
      attemptCnt: 0,
      levelName: input.level.name,
      createDate: reviewTime(input.now),
      reviewStatus: 'init',
      priority: 0,
    },
    steps: {},
    images: [],
  };
}

export function docSetsOf(level: StandinLevel) {
  return { docSets: level.steps.map((s) => ({ idDocSetType: s, types: DOC_TYPES[s] })) };
}

/** The applicant as `GET /resources/applicants/{id}/one` returns it (internal fields dropped). */
export function applicantView(a: Applicant) {
  const { steps: _steps, images: _images, amlCase: _amlCase, ...view } = a;
  return view;
}

/** Review statuses in which Sumsub is checking the applicant: its level cannot be changed, nor reset. */
export const MID_REVIEW = ['pending', 'prechecked', 'queued', 'onHold'];

/**
 * Moves the applicant to another level (reference/change-required-document-set-per-level: by
 * `moveToLevel` or by the WebSDK opened at that level): the new level's steps are required and its
 * review starts over (`init`, no result; `attemptCnt` counts attempts "on the same verification
 * level", reference/get-applicant-review-status).
 */
export function moveToLevel(a: Applicant, level: StandinLevel, now: Date): void {
  a.requiredIdDocs = docSetsOf(level);
  a.review = {
    reviewId: shortAttemptId(),
    attemptId: shortAttemptId(),
    attemptCnt: 0,
    levelName: level.name,
    createDate: reviewTime(now),
    reviewStatus: 'init',
    priority: a.review.priority,
  };
}

/**
 * Resets the applicant (reference/reset-applicant): back to `init`, uploaded documents inactive
 * (dropped here), every status previously assigned deleted.
 */
export function resetApplicant(a: Applicant, now: Date): void {
  a.steps = {};
  a.images = [];
  a.review = {
    reviewId: shortAttemptId(),
    attemptId: shortAttemptId(),
    attemptCnt: a.review.attemptCnt,
    levelName: a.review.levelName,
    createDate: reviewTime(now),
    reviewStatus: 'init',
    priority: a.review.priority,
  };
}
