/** The API shapes of a transfer and of the settings (docs/guides/travel-rule.md). */
import type { Config } from '../../config';
import type { SettingsRow, TransferWithRisk } from './travel-rule.repo';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toTransferView(t: TransferWithRisk) {
  return {
    transfer_id: t.id,
    direction: t.direction as 'outbound' | 'inbound',
    status: t.status,
    status_reason: t.statusReason,
    asset: t.asset,
    chain: t.chain,
    amount: t.amount,
    fiat_value:
      t.fiatAmount !== null && t.fiatCurrency !== null
        ? { amount: t.fiatAmount, currency: t.fiatCurrency }
        : null,
    threshold_applies: t.thresholdApplies,
    originator: t.originator,
    beneficiary: t.beneficiary,
    originator_vasp: (t.originatorVasp as Record<string, unknown> | null) ?? null,
    beneficiary_vasp: t.beneficiaryVasp ?? null,
    counterparty_wallet: {
      address: t.counterpartyAddress,
      travel_address: t.counterpartyTravelAddress,
      hosted: t.counterpartyHosted,
      wallet_id: t.walletId,
      screening_id: t.screeningId,
      risk_level: t.screeningId ? (t.riskLevel ?? 'unknown') : null,
    },
    ownership_request_id: t.ownershipRequestId,
    repair_fields: t.repairFields ?? null,
    tx_hash: t.txHash,
    name_match: (t.nameMatch as 'exact' | 'partial' | 'none' | null) ?? null,
    sanctions_matches: t.sanctionsMatches ?? null,
    sanctions_screening: t.sanctionsScreening ?? null,
    justification: t.justification,
    client_reference: t.clientReference,
    user_id: t.userId,
    business_customer_id: t.businessCustomerId,
    metadata: t.metadata ?? null,
    expires_at: iso(t.expiresAt),
    created_at: t.createdAt.toISOString(),
    accepted_at: iso(t.acceptedAt),
    completed_at: iso(t.completedAt),
  };
}

export type TransferView = ReturnType<typeof toTransferView>;

export function toSettingsView(s: SettingsRow | null, config: Pick<Config, 'travelRuleDefaultThreshold'>) {
  if (!s)
    return {
      threshold: { ...config.travelRuleDefaultThreshold },
      originator_vasp: null,
      screen_counterparty_wallet: true,
      updated_at: null,
    };
  const v = s.originatorVasp;
  return {
    threshold: { amount: s.thresholdAmount, currency: s.thresholdCurrency },
    originator_vasp: v ? { name: v.name, lei: v.lei ?? null, country: v.country } : null,
    screen_counterparty_wallet: s.screenCounterpartyWallet,
    updated_at: s.updatedAt.toISOString(),
  };
}
