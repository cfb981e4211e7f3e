import { desc, sql } from 'drizzle-orm';
import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { businessCustomers, kycUsers } from './customers';
import { verificationSessions } from './verification-sessions';

export const RECORD_STATUSES = [
  'approved',
  'declined',
  'in_review',
  'pending',
  'expired',
  'unknown',
] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

/**
 * The verification record (the KYC detail): one row per verification
 * session, rewritten each time the provider reports a newer state of it. Sensitive fields
 * (document number, date of birth, questionnaire, proof of address, AML hits) are encrypted at
 * rest (`*_enc`, shared/crypto encrypt); the extended groups are shown only to clients holding
 * the visibility group, decided at read time.
 */
export const verificationRecords = pgTable(
  'verification_records',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => verificationSessions.id),
    /** kyc or kyb */
    kind: text('kind').notNull(),
    userId: uuid('user_id').references(() => kycUsers.id),
    businessCustomerId: uuid('business_customer_id').references(() => businessCustomers.id),
    status: text('status').$type<RecordStatus>().notNull(),
    dataTrusted: boolean('data_trusted').notNull().default(false),
    fetchedAt: ts('fetched_at').notNull(),
    decisionAt: ts('decision_at'),
    /** When the provider reported this state, and its revision: newer reports win, older ones are ignored. */
    providerUpdatedAt: ts('provider_updated_at').notNull(),
    providerRevision: integer('provider_revision').notNull(),
    /**
     * Providers that re-decide within one attempt (Sumsub): the key of the reported state (level,
     * attempt, status, answer, labels). A result with another key that is not older than
     * provider_updated_at replaces the record.
     */
    providerVersion: text('provider_version'),
    // baseline identity
    firstName: text('first_name'),
    lastName: text('last_name'),
    fullName: text('full_name'),
    dateOfBirthEnc: text('date_of_birth_enc'),
    nationality: text('nationality'),
    documentType: text('document_type'),
    documentIssuingCountry: text('document_issuing_country'),
    documentExpiry: text('document_expiry'),
    gender: text('gender'),
    // check results (null when the check was not part of the verification)
    livenessStatus: text('liveness_status'),
    livenessScore: doublePrecision('liveness_score'),
    faceMatchStatus: text('face_match_status'),
    faceMatchScore: doublePrecision('face_match_score'),
    nfcStatus: text('nfc_status'),
    poaStatus: text('poa_status'),
    amlStatus: text('aml_status'),
    amlTotalHits: integer('aml_total_hits'),
    // extended groups
    documentNumberEnc: text('document_number_enc'),
    sofQuestionnaireEnc: text('sof_questionnaire_enc'),
    poaEnc: text('poa_enc'),
    amlHitsEnc: text('aml_hits_enc'),
    /** Downloadable documents: [{file_role, file_name, content_type}] (null when none). */
    documents: jsonb('documents').$type<{ file_role: string; file_name: string; content_type: string }[]>(),
    // KYB company fields (always null on kyc records)
    companyName: text('company_name'),
    registrationNumber: text('registration_number'),
    registrationCountry: text('registration_country'),
    companyType: text('company_type'),
    incorporationDate: text('incorporation_date'),
    registryStatus: text('registry_status'),
    businessRegistryDetails: jsonb('business_registry_details').$type<Record<string, unknown>>(),
    businessKeyPeople: jsonb('business_key_people').$type<Record<string, unknown>[]>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('verification_records_session_uq').on(t.sessionId),
    // detail and history: decision_at desc nulls last, then fetched_at desc
    index('verification_records_user_order_idx').on(
      t.clientId,
      t.userId,
      sql`${t.decisionAt} desc nulls last`,
      desc(t.fetchedAt),
    ),
    index('verification_records_business_order_idx').on(
      t.clientId,
      t.businessCustomerId,
      sql`${t.decisionAt} desc nulls last`,
      desc(t.fetchedAt),
    ),
    // Billing usage: a client's decided verifications by kind and decision time.
    index('verification_records_client_kind_decision_idx')
      .on(t.clientId, t.kind, t.decisionAt)
      .where(sql`decision_at is not null`),
  ],
);
