/** The recurring payment and run bodies of the API (docs/guides/recurring.md). */

import type { AttemptRow, DefinitionRow, RunRow } from './recurring.repo';
import type { Period } from './recurring-limits.service';
import type { FailureReason } from './runs.machine';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function authorizationUrlOf(publicUrl: string, d: DefinitionRow): string {
  return `${publicUrl}/checkout/mandate/${d.authorizationToken}`;
}

/** next_run_at: when the next scheduled run (or a due retry) starts. */
export function toDefinitionDto(d: DefinitionRow, publicUrl: string, nextRunAt: Date | null) {
  return {
    definition_id: d.id,
    status: d.status,
    status_reason: d.statusReason,
    project_id: d.projectId,
    user_id: d.userId,
    business_customer_id: d.businessCustomerId,
    currency: d.currency,
    amount: d.amount,
    description: d.description,
    reference: d.reference,
    schedule: d.schedule ?? null,
    retry_policy: d.retryPolicy,
    redirect_url: d.redirectUrl,
    next_run_at: iso(nextRunAt),
    runs_count: d.runsCount,
    paused_until: iso(d.pausedUntil),
    metadata: d.metadata,
    created_at: d.createdAt.toISOString(),
    canceled_at: iso(d.canceledAt),
    mandate: {
      max_amount_per_payment: d.maxAmountPerPayment,
      periodic_limit: { amount: d.periodicAmount, period: d.period as Period, alignment: d.alignment },
      valid_from: d.validFrom.toISOString(),
      valid_to: iso(d.validTo),
      status: d.mandateStatus,
      bank_name: d.bankName,
      authorized_at: iso(d.authorizedAt),
    },
    authorization_url: d.status === 'pending_authorization' ? authorizationUrlOf(publicUrl, d) : null,
    authorization_expires_at:
      d.status === 'pending_authorization' ? d.authorizationExpiresAt.toISOString() : null,
  };
}
export type DefinitionDto = ReturnType<typeof toDefinitionDto>;

export function toAttemptDto(a: AttemptRow) {
  return {
    attempt_number: a.attemptNumber,
    transaction_id: a.transactionId,
    trigger: a.trigger as 'schedule' | 'on_demand' | 'auto_retry' | 'manual_retry',
    retry_of_attempt: a.retryOfAttempt,
    started_at: a.startedAt.toISOString(),
    finished_at: iso(a.finishedAt),
    outcome: (a.outcome ?? 'processing') as 'processing' | 'succeeded' | 'failed',
    failure_reason: a.failureReason as FailureReason | null,
  };
}

export function toRunDto(r: RunRow, attempts: AttemptRow[], replayed?: boolean) {
  return {
    run_id: r.id,
    definition_id: r.definitionId,
    sequence: r.sequence,
    kind: r.kind as 'scheduled' | 'on_demand',
    scheduled_for: r.scheduledFor.toISOString(),
    amount: r.amount,
    currency: r.currency,
    description: r.description,
    status: r.status,
    transaction_id: r.transactionId,
    failure_reason: r.failureReason as FailureReason | null,
    will_retry: r.willRetry,
    next_retry_at: iso(r.nextRetryAt),
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    attempts: attempts.filter((a) => a.runId === r.id).map(toAttemptDto),
    ...(replayed === undefined ? {} : { replayed }),
  };
}
export type RunDto = ReturnType<typeof toRunDto>;
