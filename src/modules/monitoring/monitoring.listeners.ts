/**
 * Remediations that wait on another area, moved on inside that area's transaction:
 * - identity_reverification: the verification's result (approved, declined or in_review: the person
 *   finished) submits the remediation with `verification_id` and `verification_status`;
 * - wallet_ownership: verified or failed submits it with the ownership outcome; expired is the
 *   remediation expiring (the policy's on_remediation_expiry). A cancel (the merchant's, or the
 *   revoke of a review) leaves it to the reviewer.
 * The remediation is no longer pending after either move, so its event carries no remediation URL.
 */
import { onVerificationResult } from '../kyc/verification-listeners';
import { onOwnershipStatusChange } from '../screening/ownership.listeners';
import { lockAwaitingRemediations } from './monitoring.repo';
import { expireRow, submitRow } from './monitoring.reviews';

const COMPLETED_VERIFICATION = ['approved', 'declined', 'in_review'];

onVerificationResult(async (tx, session, record, now) => {
  if (!COMPLETED_VERIFICATION.includes(record.status)) return;
  const rows = await lockAwaitingRemediations(tx, session.clientId, { verificationId: session.id });
  for (const row of rows)
    await submitRow({ now, publicUrl: '' }, tx, row, {
      verification_id: session.id,
      verification_status: record.status,
    });
});

onOwnershipStatusChange(async (tx, r, now) => {
  if (r.status !== 'verified' && r.status !== 'failed' && r.status !== 'expired') return;
  const rows = await lockAwaitingRemediations(tx, r.clientId, { ownershipRequestId: r.id });
  for (const row of rows) {
    if (r.status === 'expired') await expireRow({ now, publicUrl: '' }, tx, row);
    else
      await submitRow({ now, publicUrl: '' }, tx, row, {
        ownership_request_id: r.id,
        ownership_status: r.status,
        ownership_method: r.method,
        failure_reason: r.failureReason,
      });
  }
});
