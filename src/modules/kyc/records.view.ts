/**
 * The curated verification record (the KYC detail). Extended groups are decrypted and shown only
 * when the client holds the visibility group, read at request time.
 */
import { decrypt } from '../../shared/crypto';
import type { VisibilityGroup } from '../admin/clients-admin.service';
import type { RecordRow } from './verification.repo';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toRecordView(r: RecordRow, groups: ReadonlySet<VisibilityGroup>, key: Buffer) {
  const open = (v: string | null) => (v === null ? null : decrypt(key, v));
  const openJson = <T>(v: string | null) => (v === null ? null : (JSON.parse(decrypt(key, v)) as T));
  const show = <T>(g: VisibilityGroup, value: () => T): T | null => (groups.has(g) ? value() : null);
  return {
    verification_id: r.sessionId,
    status: r.status,
    kind: r.kind as 'kyc' | 'kyb',
    data_trusted: r.dataTrusted,
    fetched_at: r.fetchedAt.toISOString(),
    decision_at: iso(r.decisionAt),
    first_name: r.firstName,
    last_name: r.lastName,
    full_name: r.fullName,
    date_of_birth: open(r.dateOfBirthEnc),
    nationality: r.nationality,
    document_type: r.documentType,
    document_issuing_country: r.documentIssuingCountry,
    document_expiry: r.documentExpiry,
    gender: r.gender,
    liveness_status: r.livenessStatus,
    liveness_score: r.livenessScore,
    face_match_status: r.faceMatchStatus,
    face_match_score: r.faceMatchScore,
    nfc_status: r.nfcStatus,
    poa_status: r.poaStatus,
    aml_status: r.amlStatus,
    aml_total_hits: r.amlTotalHits,
    document_number: show('document_number', () => open(r.documentNumberEnc)),
    sof_questionnaire: show('sof_questionnaire', () =>
      openJson<Record<string, unknown>>(r.sofQuestionnaireEnc),
    ),
    poa: show('poa', () => openJson<Record<string, unknown>>(r.poaEnc)),
    aml_hits: show('aml_hits', () => openJson<Record<string, unknown>[]>(r.amlHitsEnc)),
    documents: show('documents', () => r.documents ?? []),
    company_name: r.companyName,
    registration_number: r.registrationNumber,
    registration_country: r.registrationCountry,
    company_type: r.companyType,
    incorporation_date: r.incorporationDate,
    registry_status: r.registryStatus,
    business_registry_details: r.businessRegistryDetails,
    business_key_people: r.businessKeyPeople,
  };
}
