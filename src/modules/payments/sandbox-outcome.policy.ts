/**
 * Sandbox shortcut: drive a payment to a final outcome along the real path. A single `completed`
 * notification on a pending payment is out of order (manual review, as for a real network), so the
 * sandbox bank first reports the payer's authorization and then the final detail status, each as
 * a signed notification through /providers/bank/notifications. The same walk resolves a payment held
 * for manual review (an out-of-order status): the in-order steps move it on and clear the review.
 */
import { ValidationError } from '../../shared/errors';

export const SANDBOX_OUTCOMES = ['success', 'failed', 'insufficient_funds', 'expired', 'canceled'] as const;
export type SandboxOutcome = (typeof SANDBOX_OUTCOMES)[number];

const FINAL_DETAIL: Record<SandboxOutcome, string> = {
  success: 'completed',
  failed: 'rejected',
  insufficient_funds: 'rejected_insufficient_funds',
  expired: 'expired',
  canceled: 'canceled',
};

/** The detail statuses the sandbox bank reports, in order, to bring a payment in `status` to `outcome`. */
export function outcomePath(status: string, outcome: SandboxOutcome): string[] {
  return status === 'pending'
    ? ['awaiting_bank_authorization', FINAL_DETAIL[outcome]]
    : [FINAL_DETAIL[outcome]];
}

/** Exactly one of provider_status and outcome (422 with loc otherwise). */
export function simulateRequest(body: {
  provider_status?: string;
  outcome?: SandboxOutcome;
}): { providerStatus: string } | { outcome: SandboxOutcome } {
  if ((body.provider_status === undefined) === (body.outcome === undefined))
    throw new ValidationError([
      {
        loc: ['body', body.outcome === undefined ? 'provider_status' : 'outcome'],
        msg: 'Exactly one of provider_status and outcome is required',
        type: 'value_error',
      },
    ]);
  return body.outcome !== undefined ? { outcome: body.outcome } : { providerStatus: body.provider_status! };
}
