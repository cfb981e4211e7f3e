import { desc, sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const OPCO_STATUSES = [
  'draft',
  'pending_superadmin_review',
  'awaiting_approval',
  'activated',
  'rejected',
  'deactivated',
] as const;
export type OpcoStatus = (typeof OPCO_STATUSES)[number];

/** Operating company (Sub-TPP). The status machine lives in modules/opcos/opcos.machine.ts. */
export const opcos = pgTable(
  'opcos',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    status: text('status').$type<OpcoStatus>().notNull().default('draft'),
    statusReason: text('status_reason'),
    opcoType: text('opco_type').notNull(),
    name: text('name').notNull(),
    domain: text('domain').notNull(),
    countryCode: text('country_code').notNull(),
    legalEntityName: text('legal_entity_name'),
    registrationNumber: text('registration_number').notNull(),
    primaryUseCase: text('primary_use_case').notNull(),
    settlementIban: text('settlement_iban').notNull(),
    settlementBic: text('settlement_bic'),
    mcc: text('mcc').notNull(),
    mccSubtype: text('mcc_subtype'),
    logo: text('logo'),
    parentSubTppId: text('parent_sub_tpp_id'),
    soleTrader: jsonb('sole_trader').$type<Record<string, unknown> | null>(),
    ubos: jsonb('ubos').$type<unknown[] | null>(),
    directors: jsonb('directors').$type<unknown[] | null>(),
    signatories: jsonb('signatories').$type<unknown[] | null>(),
    subTppId: text('sub_tpp_id'),
    /** The payment network's id of its registration (Token.io sub-TPP id), kept apart until it activates the opco. */
    subTppRegistrationId: text('sub_tpp_registration_id'),
    /** Networks that review later (Token.io): when the review status is read next; null = not polled. */
    networkCheckAt: ts('network_check_at'),
    submittedAt: ts('submitted_at'),
    /** When the sandbox Sub-TPP approval simulator activates an awaiting_approval opco. */
    activationDueAt: ts('activation_due_at'),
    activatedAt: ts('activated_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('opcos_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('opcos_client_name_search_idx').on(t.clientId, sql`lower(${t.name}) text_pattern_ops`),
    index('opcos_status_created_idx').on(t.status, desc(t.createdAt)),
    index('opcos_activation_due_idx').on(t.activationDueAt).where(sql`status = 'awaiting_approval'`),
    index('opcos_network_check_idx').on(t.networkCheckAt).where(sql`status = 'awaiting_approval'`),
  ],
);
