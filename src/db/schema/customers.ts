import { desc, sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, updatedAt } from './columns';

export const KYC_STATUSES = ['none', 'pending', 'approved', 'rejected'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];
export const KYB_STATUSES = ['none', 'pending', 'approved', 'rejected', 'on_hold'] as const;
export type KybStatus = (typeof KYB_STATUSES)[number];
/** An external attestation's status (external_status). */
export const ATTESTATION_STATUSES = ['pending', 'verified', 'rejected'] as const;
export type AttestationStatus = (typeof ATTESTATION_STATUSES)[number];

/** A client's end user (payer and KYC subject). */
export const kycUsers = pgTable(
  'kyc_users',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    email: text('email').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    externalRef: text('external_ref'),
    kycStatus: text('kyc_status').$type<KycStatus>().notNull().default('none'),
    /** service_kyc or external_attestation */
    verificationMode: text('verification_mode').notNull().default('service_kyc'),
    /** null until an external attestation exists */
    externalStatus: text('external_status').$type<AttestationStatus>(),
    /** none, service, external */
    verificationSource: text('verification_source').notNull().default('none'),
    /** Reference and note of the client's latest external attestation (not shown in the user view). */
    externalReference: text('external_reference'),
    externalNote: text('external_note'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('kyc_users_client_email_uq').on(t.clientId, sql`lower(${t.email})`),
    index('kyc_users_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('kyc_users_client_email_search_idx').on(t.clientId, sql`lower(${t.email}) text_pattern_ops`),
    index('kyc_users_client_status_idx').on(t.clientId, t.kycStatus, desc(t.createdAt)),
  ],
);

/** A client's business customer (payer and KYB subject). */
export const businessCustomers = pgTable(
  'business_customers',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    companyName: text('company_name').notNull(),
    registrationNumber: text('registration_number'),
    country: text('country').notNull(),
    email: text('email').notNull(),
    kybStatus: text('kyb_status').$type<KybStatus>().notNull().default('none'),
    /** service_kyc, service_kyb or external_attestation */
    verificationMode: text('verification_mode').notNull().default('service_kyb'),
    externalStatus: text('external_status').$type<AttestationStatus>(),
    verificationSource: text('verification_source').notNull().default('none'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('business_customers_client_email_uq').on(t.clientId, sql`lower(${t.email})`),
    index('business_customers_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('business_customers_client_email_search_idx').on(
      t.clientId,
      sql`lower(${t.email}) text_pattern_ops`,
    ),
    index('business_customers_client_name_search_idx').on(
      t.clientId,
      sql`lower(${t.companyName}) text_pattern_ops`,
    ),
    index('business_customers_client_status_idx').on(t.clientId, t.kybStatus, desc(t.createdAt)),
  ],
);
