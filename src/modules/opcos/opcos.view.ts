import type { OpcoRow } from './opcos.repo';
import type { OpcoType } from './opcos.schemas';

type People = { fullName: string }[] | null;

/** The opco record as the API returns it. */
export function toOpcoView(o: OpcoRow) {
  return {
    opco_id: o.id,
    status: o.status,
    status_reason: o.statusReason,
    sub_tpp_id: o.subTppId,
    opco_type: o.opcoType as OpcoType,
    name: o.name,
    domain: o.domain,
    country_code: o.countryCode,
    legal_entity_name: o.legalEntityName,
    registration_number: o.registrationNumber,
    primary_use_case: o.primaryUseCase,
    settlement_iban: o.settlementIban,
    settlement_bic: o.settlementBic,
    mcc: o.mcc,
    mcc_subtype: o.mccSubtype,
    logo: o.logo,
    parent_sub_tpp_id: o.parentSubTppId,
    sole_trader: o.soleTrader as { fullName: string; address: string; dateOfBirth: string } | null,
    ubos: o.ubos as People,
    directors: o.directors as People,
    signatories: o.signatories as People,
    submitted_at: o.submittedAt?.toISOString() ?? null,
    activated_at: o.activatedAt?.toISOString() ?? null,
    activation_due_at: o.status === 'awaiting_approval' ? (o.activationDueAt?.toISOString() ?? null) : null,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
export type OpcoView = ReturnType<typeof toOpcoView>;
