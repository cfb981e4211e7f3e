/** API shapes of screenings and wallets (docs/guides/screening.md). */
import type { RiskLevel } from '../../providers/screening/port';
import type { ScreeningRow, WalletRow } from './screening.repo';

type Trigger = 'api' | 'rescreen' | 'monitoring' | 'travel_rule';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toScreeningView(s: ScreeningRow, cached = false) {
  const done = s.status === 'completed';
  return {
    screening_id: s.id,
    wallet_id: s.walletId,
    chain: s.chain,
    address: s.address,
    asset: s.asset,
    status: s.status,
    risk_level: done ? (s.riskLevel as RiskLevel) : null,
    risk_score: done ? s.riskScore : null,
    sanctions_hit: done ? s.sanctionsHit : null,
    categories: done ? (s.categories ?? []) : null,
    exposures: done ? (s.exposures ?? []) : null,
    cluster: done ? (s.cluster ?? null) : null,
    risk_reasons: done ? (s.riskReasons ?? []) : null,
    client_reference: s.clientReference,
    user_id: s.userId,
    business_customer_id: s.businessCustomerId,
    trigger: s.trigger as Trigger,
    cached,
    failure_reason: s.failureReason,
    created_at: s.createdAt.toISOString(),
    completed_at: iso(s.completedAt),
  };
}

export function toWalletView(w: WalletRow) {
  return {
    wallet_id: w.id,
    chain: w.chain,
    address: w.address,
    label: w.label,
    user_id: w.userId,
    business_customer_id: w.businessCustomerId,
    monitored: w.monitored,
    risk_level: (w.riskLevel ?? 'unknown') as RiskLevel,
    risk_score: w.riskScore,
    sanctions_hit: w.sanctionsHit,
    latest_screening_id: w.latestScreeningId,
    last_screened_at: iso(w.lastScreenedAt),
    ownership_status: w.ownershipStatus,
    ownership_method: w.ownershipMethod,
    ownership_verified_at: iso(w.ownershipVerifiedAt),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
