/**
 * What a person does in the stand-in's WebSDK: uploads the documents of the level's steps (the
 * stand-in makes up the recognised data: `info`, `idDocs`, images, questionnaire answers, company
 * data and beneficiaries), then the tester decides the review. Field names follow the pages listed
 * in applicants.ts.
 */
import { samplePdf, samplePng } from '../../../src/providers/verification/sandbox-files';
import {
  type Applicant,
  type RejectType,
  type ReviewResult,
  reviewTime,
  type StepName,
  shortAttemptId,
} from './applicants';

export type Decision = 'approve' | 'reject_retry' | 'reject_final' | 'review';

/** AML-related rejection labels the tester can add (reference/final-rejection, "Compromised persons"). */
export const AML_LABELS = ['PEP', 'SANCTIONS'];

/**
 * The AML case of a screening (reference/get-aml-case-data): with `hits`, two matches whatever the
 * decision (an approval means an officer cleared them: review GREEN); without, none.
 */
export function amlCaseOf(a: Applicant, hits: boolean, answer: 'GREEN' | 'RED', now: Date) {
  return {
    id: `aml-${a.id}`,
    createdAt: reviewTime(now).slice(0, 19),
    targetEntityType: 'applicant',
    targetEntityId: a.id,
    screeningVendor: 'standin',
    ongoingMonitoring: { enabled: true },
    review: { answer: hits ? answer : 'GREEN' },
    riskLabels: hits ? ['pep', 'sanctions'] : [],
    hits: hits
      ? [
          { id: `${a.id}-hit-1`, name: 'Jane Doe (PEP list)' },
          { id: `${a.id}-hit-2`, name: 'J. Doe (sanctions list)' },
        ]
      : [],
  };
}

export interface Images {
  next(): number;
  add(a: Applicant, contentType: string, bytes: Buffer): number;
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' && v.trim() ? v : fallback;
}

/** Uploads for a new attempt: recognised data and images for every step of the level. */
export function uploadDocuments(a: Applicant, steps: StepName[], images: Images, now: Date): void {
  a.images = [];
  a.steps = {};
  if (a.type === 'individual') {
    const fixed = (a.fixedInfo ?? {}) as Record<string, unknown>;
    const firstName = str(fixed.firstName, 'Jane');
    const lastName = str(fixed.lastName, 'Doe');
    const passport = {
      idDocType: 'PASSPORT',
      country: 'GBR',
      firstName,
      firstNameEn: firstName,
      lastName,
      lastNameEn: lastName,
      dob: '1990-04-12',
      validUntil: '2031-06-30',
      number: `P${String(a.id.replace(/\D/g, '')).padEnd(8, '7').slice(0, 8)}`,
    };
    a.info = {
      firstName,
      firstNameEn: firstName,
      lastName,
      lastNameEn: lastName,
      dob: '1990-04-12',
      gender: 'F',
      country: 'GBR',
      nationality: 'GBR',
      idDocs: [passport],
    };
  }
  for (const step of steps) {
    if (step === 'IDENTITY')
      a.steps.IDENTITY = {
        country: 'GBR',
        idDocType: 'PASSPORT',
        imageIds: [images.add(a, 'image/png', samplePng())],
      };
    if (step === 'SELFIE')
      a.steps.SELFIE = { idDocType: 'SELFIE', imageIds: [images.add(a, 'image/png', samplePng())] };
    if (step === 'PROOF_OF_RESIDENCE') {
      a.steps.PROOF_OF_RESIDENCE = {
        country: 'GBR',
        idDocType: 'UTILITY_BILL',
        imageIds: [images.add(a, 'application/pdf', samplePdf('Stand-in utility bill'))],
      };
      a.info.addresses = [
        { street: '221B Baker Street', town: 'London', postCode: 'NW1 6XE', country: 'GBR' },
      ];
    }
    if (step === 'QUESTIONNAIRE') {
      const payslip = images.add(a, 'application/pdf', samplePdf('Stand-in payslip'));
      a.steps.QUESTIONNAIRE = { imageIds: [payslip] };
      a.questionnaires = [
        {
          id: 'source_of_funds',
          sections: {
            sourceOfFunds: {
              items: {
                source: { value: 'employment_income' },
                occupation: { value: 'Software engineer' },
                annualIncome: { value: '50000-100000' },
                expectedMonthlyVolume: { value: '1000-5000' },
                payslip: { value: String(payslip) },
              },
            },
          },
        },
      ];
    }
    if (step === 'COMPANY')
      a.steps.COMPANY = {
        country: 'GBR',
        idDocType: 'COMPANY_DOC',
        imageIds: [images.add(a, 'application/pdf', samplePdf('Stand-in certificate of incorporation'))],
      };
  }
  a.review = {
    ...a.review,
    attemptId: shortAttemptId(),
    attemptCnt: a.review.attemptCnt + 1,
    reviewStatus: 'pending',
    reviewResult: undefined,
    reviewDate: undefined,
    // Each attempt is a check initiated anew (reference/get-applicant-review-status, createDate).
    createDate: reviewTime(now),
    elapsedSincePendingMs: 0,
  };
}

export function reviewResultOf(decision: Exclude<Decision, 'review'>, aml: boolean): ReviewResult {
  if (decision === 'approve') return { reviewAnswer: 'GREEN' };
  const type: RejectType = decision === 'reject_final' ? 'FINAL' : 'RETRY';
  const labels = type === 'FINAL' ? ['FORGERY'] : ['UNSATISFACTORY_PHOTOS'];
  return {
    reviewAnswer: 'RED',
    reviewRejectType: type,
    rejectLabels: aml ? [...labels, ...AML_LABELS] : labels,
    moderationComment:
      type === 'FINAL' ? 'We could not verify you.' : 'Please upload a clearer photo of your document.',
    clientComment: type === 'FINAL' ? 'Document forgery suspected.' : 'Photos were unreadable.',
  };
}

/** Completes the review: the overall answer and each uploaded step's answer. */
export function completeReview(a: Applicant, result: ReviewResult, now: Date): void {
  a.review = { ...a.review, reviewStatus: 'completed', reviewDate: reviewTime(now), reviewResult: result };
  for (const s of Object.values(a.steps)) s.reviewResult = { reviewAnswer: result.reviewAnswer };
}

export function isFinalRejected(a: Applicant): boolean {
  return a.review.reviewStatus === 'completed' && a.review.reviewResult?.reviewRejectType === 'FINAL';
}
