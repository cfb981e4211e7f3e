/** The monitored transaction as the API shows it. */
import { padScale } from '../../platform/decimal';
import type { MonitoredTransactionRow, ReviewRow } from './monitoring.repo';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Amounts are stored as NUMERIC(38,18): shown without the padding zeros, keeping the currency's decimals. */
export const amountView = (v: string, digits = 2): string => padScale(v, digits);

export function remediationUrl(publicUrl: string, row: MonitoredTransactionRow): string | null {
  if (!row.remediationToken || row.remediationRevokedAt || row.remediationStatus !== 'pending') return null;
  return `${publicUrl.replace(/\/$/, '')}/remediate/${row.remediationToken}`;
}

export function toMonitoredView(
  row: MonitoredTransactionRow,
  reviews: ReviewRow[],
  publicUrl: string,
  digits: number,
) {
  const url = remediationUrl(publicUrl, row);
  return {
    monitored_transaction_id: row.id,
    client_reference: row.clientReference,
    direction: row.direction,
    amount: amountView(row.amount, digits),
    currency: row.currency,
    occurred_at: row.occurredAt.toISOString(),
    payment_method: row.paymentMethod,
    user_id: row.userId,
    business_customer_id: row.businessCustomerId,
    customer: row.customer ?? null,
    counterparty: row.counterparty,
    transaction_id: row.transactionId,
    metadata: row.metadata ?? null,
    decision: row.decision,
    decision_reason: row.decisionReason,
    score: row.score,
    rule_hits: row.ruleHits as never[],
    sanctions_hit: row.sanctionsHit,
    sanctions_matches: row.sanctionsMatches as never[],
    wallet_screening_id: row.walletScreeningId,
    remediation: row.remediationType
      ? {
          type: row.remediationType,
          status: row.remediationStatus ?? 'pending',
          url,
          expires_at: iso(row.remediationExpiresAt),
          submitted_at: iso(row.remediationSubmittedAt),
          answers: row.remediationAnswers ?? null,
          verification_id: row.remediationVerificationId,
          ownership_request_id: row.remediationOwnershipRequestId,
        }
      : null,
    remediation_url: url,
    remediation_status: row.remediationStatus,
    policy_version: row.policyVersion,
    reviews: reviews
      .filter((r) => r.monitoredTransactionId === row.id)
      .map((r) => ({
        decision: r.decision,
        note: r.note,
        actor_type: r.actorType,
        actor_account_id: r.actorAccountId,
        reviewed_at: r.reviewedAt.toISOString(),
        remediation_type: r.remediationType,
        cleared_sanctions_match: r.clearedSanctionsMatch,
      })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
