/**
 * How a subject's verification status follows from its records, links and attestations. Nothing
 * else decides kyc_status / kyb_status.
 *
 *  - record status -> subject status: approved -> approved, declined -> rejected,
 *    in_review / pending -> pending; expired and unknown records decide nothing (the subject
 *    falls back to its previous meaningful record, or none);
 *  - the latest record is the one the provider reported last (provider time, then revision), so
 *    an older notification arriving late never regresses the status;
 *  - creating a verification link moves none / rejected / pending to pending; an approved subject
 *    stays approved until the provider reports a new result; when a link lapses unused and nothing
 *    else is under way, the subject falls back to its latest deciding record (or none);
 *  - external attestation: verified -> approved, rejected -> rejected, pending -> pending.
 */
import type { AttestationStatus } from '../../db/schema/customers';
import type { RecordStatus } from '../../db/schema/verification-records';

export { ATTESTATION_STATUSES, type AttestationStatus } from '../../db/schema/customers';
export type VerificationSource = 'none' | 'service' | 'external';

const SUBJECT_STATUS_OF_RECORD: Record<RecordStatus, 'approved' | 'rejected' | 'pending' | null> = {
  approved: 'approved',
  declined: 'rejected',
  in_review: 'pending',
  pending: 'pending',
  expired: null,
  unknown: null,
};

/** Record statuses that decide a subject's status (the others fall back to an earlier record). */
export const DECIDING_RECORD_STATUSES = (Object.keys(SUBJECT_STATUS_OF_RECORD) as RecordStatus[]).filter(
  (s) => SUBJECT_STATUS_OF_RECORD[s] !== null,
);

export function statusFromLatestRecord(
  latest: RecordStatus | null,
): 'none' | 'approved' | 'rejected' | 'pending' {
  return (latest && SUBJECT_STATUS_OF_RECORD[latest]) || 'none';
}

export function statusAfterNewLink<S extends string>(current: S): S | 'pending' {
  return current === 'approved' ? current : 'pending';
}

export const ATTESTATION_TO_STATUS: Record<AttestationStatus, 'approved' | 'rejected' | 'pending'> = {
  verified: 'approved',
  rejected: 'rejected',
  pending: 'pending',
};

/** Record statuses from which a subject may resubmit (get a new link). */
export const RESUBMITTABLE: readonly RecordStatus[] = ['declined', 'expired', 'in_review'];
