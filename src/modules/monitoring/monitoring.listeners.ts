/**
 * Remediations that wait on another area, moved on inside that area's transaction:
 * - identity_reverification: the verification's result (approved, declined or in_review: the person
 *   finished) submits the remediation with `verification_id` and `verification_status`;
 * - wallet_ownership: verified or failed submits it with the ownership outcome; expired is the
 *   remediation expiring (the policy's on_remediation_expiry). A cancel (the merchant's, or the
 *   revoke of a review) leaves it to the reviewer.
 * The remediation is no longer pending after either move, so its event carries no remediation URL.
 */
import { on } from '../../platform/module';
import { lockAwaitingRemediations } from './monitoring.repo';
import { expireRow, submitRow } from './reviews.transitions';

const COMPLETED_VERIFICATION = ['approved', 'declined', 'in_review'];

export const submitOnVerificationResult = on(
  'kyc.verification_result',
  async ({ session, record, at }, { tx }) => {
    if (!COMPLETED_VERIFICATION.includes(record.status)) return;
    const rows = await lockAwaitingRemediations(tx, session.clientId, { verificationId: session.id });
    for (const row of rows)
      await submitRow({ now: at, publicUrl: '' }, tx, row, {
        verification_id: session.id,
        verification_status: record.status,
      });
  },
);

export const followOwnershipOutcome = on(
  'screening.ownership_status_changed',
  async ({ request: r, at }, { tx }) => {
    if (r.status !== 'verified' && r.status !== 'failed' && r.status !== 'expired') return;
    const rows = await lockAwaitingRemediations(tx, r.clientId, { ownershipRequestId: r.id });
    for (const row of rows) {
      if (r.status === 'expired') await expireRow({ now: at, publicUrl: '' }, tx, row);
      else
        await submitRow({ now: at, publicUrl: '' }, tx, row, {
          ownership_request_id: r.id,
          ownership_status: r.status,
          ownership_method: r.method,
          failure_reason: r.failureReason,
        });
    }
  },
);
