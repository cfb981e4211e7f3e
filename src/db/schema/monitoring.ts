import { desc, sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { bytea, createdAt, idColumn, ts, updatedAt } from './columns';

export const DECISIONS = ['APPROVED', 'IN_REVIEW', 'DECLINED', 'AWAITING_USER'] as const;
export type Decision = (typeof DECISIONS)[number];
export const REMEDIATION_STATUSES = ['pending', 'submitted', 'expired'] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

/**
 * Every version of a client's monitoring policy. PUT inserts version + 1;
 * the current policy is the highest version. A client with no row has the default policy (version 0).
 */
export const monitoringPolicies = pgTable(
  'monitoring_policies',
  {
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    version: integer('version').notNull(),
    /** {rules, review_score, decline_score, sanctions, remediation_ttl_hours, on_remediation_expiry} */
    policy: jsonb('policy').$type<Record<string, unknown>>().notNull(),
    updatedByAccountId: uuid('updated_by_account_id'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.version] })],
);

/**
 * A transaction submitted for monitoring with its decision. `decision` moves only through
 * modules/monitoring/monitoring.machine.ts with compare-and-set updates. `subject_key` names the
 * customer (`user:<id>`, `business:<id>` or `external:<external_id>`) for the velocity and
 * structuring rules, which read the (client_id, subject_key, occurred_at) index.
 */
export const monitoredTransactions = pgTable(
  'monitored_transactions',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    clientReference: text('client_reference').notNull(),
    payloadHash: text('payload_hash').notNull(),
    direction: text('direction').notNull(),
    amount: numeric('amount', { precision: 38, scale: 18 }).notNull(),
    currency: text('currency').notNull(),
    occurredAt: ts('occurred_at').notNull(),
    paymentMethod: text('payment_method'),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    customer: jsonb('customer').$type<Record<string, unknown> | null>(),
    subjectKey: text('subject_key').notNull(),
    counterparty: jsonb('counterparty').$type<Record<string, unknown>>().notNull(),
    transactionId: uuid('transaction_id'),
    metadata: jsonb('metadata').$type<Record<string, string> | null>(),
    /** The text `q` searches: client_reference, counterparty name, account identifier, customer external_id. */
    searchText: text('search_text').notNull(),
    decision: text('decision').$type<Decision>().notNull(),
    decisionReason: text('decision_reason'),
    score: integer('score').notNull().default(0),
    ruleHits: jsonb('rule_hits').$type<Record<string, unknown>[]>().notNull().default(sql`'[]'::jsonb`),
    sanctionsHit: boolean('sanctions_hit').notNull().default(false),
    sanctionsMatches: jsonb('sanctions_matches')
      .$type<Record<string, unknown>[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    walletScreeningId: uuid('wallet_screening_id'),
    remediationType: text('remediation_type'),
    remediationStatus: text('remediation_status').$type<RemediationStatus>(),
    remediationToken: text('remediation_token'),
    remediationExpiresAt: ts('remediation_expires_at'),
    remediationSubmittedAt: ts('remediation_submitted_at'),
    remediationRevokedAt: ts('remediation_revoked_at'),
    remediationAnswers: jsonb('remediation_answers').$type<Record<string, unknown> | null>(),
    /** identity_reverification: the KYC/KYB verification link issued for it (modules/kyc). */
    remediationVerificationId: uuid('remediation_verification_id'),
    /** wallet_ownership: the section 3 ownership request opened for counterparty.wallet. */
    remediationOwnershipRequestId: uuid('remediation_ownership_request_id'),
    policyVersion: integer('policy_version').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('monitored_tx_client_reference_uq').on(t.clientId, t.clientReference),
    index('monitored_tx_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    // Velocity and structuring: one index range per rule, never a scan of the client's history.
    index('monitored_tx_client_subject_occurred_idx').on(t.clientId, t.subjectKey, t.occurredAt),
    index('monitored_tx_client_decision_created_idx').on(t.clientId, t.decision, desc(t.createdAt)),
    uniqueIndex('monitored_tx_remediation_token_uq').on(t.remediationToken),
    // The verification and ownership outcomes find the remediation they move on.
    index('monitored_tx_remediation_verification_idx')
      .on(t.remediationVerificationId)
      .where(sql`remediation_verification_id is not null`),
    index('monitored_tx_remediation_ownership_idx')
      .on(t.remediationOwnershipRequestId)
      .where(sql`remediation_ownership_request_id is not null`),
  ],
);

/**
 * The optional document of a source_of_funds remediation, kept in the database (bytea) like ticket
 * attachments: it commits with the submission, every node reads it, the backup covers it.
 */
export const monitoringRemediationDocuments = pgTable(
  'monitoring_remediation_documents',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    monitoredTransactionId: uuid('monitored_transaction_id')
      .notNull()
      .references(() => monitoredTransactions.id),
    fileName: text('file_name').notNull(),
    /** Decided from the bytes (magic numbers / UTF-8 text), never taken from the uploader. */
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    content: bytea('content').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('monitoring_remediation_documents_tx_idx').on(t.monitoredTransactionId)],
);

/** Reviewer decisions with their notes, oldest first. */
export const monitoringReviews = pgTable(
  'monitoring_reviews',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    monitoredTransactionId: uuid('monitored_transaction_id')
      .notNull()
      .references(() => monitoredTransactions.id),
    decision: text('decision').$type<Decision>().notNull(),
    previousDecision: text('previous_decision').$type<Decision>().notNull(),
    note: text('note').notNull(),
    remediationType: text('remediation_type'),
    clearedSanctionsMatch: boolean('cleared_sanctions_match').notNull().default(false),
    actorType: text('actor_type').notNull(),
    actorAccountId: uuid('actor_account_id'),
    reviewedAt: ts('reviewed_at').notNull(),
  },
  (t) => [index('monitoring_reviews_tx_idx').on(t.monitoredTransactionId, t.reviewedAt)],
);

/**
 * Sanctions hits a reviewer cleared: this party (its name with its identifier) is not that list
 * entry. The hit is keyed by list and entry, so another entry of the same name (designated later, or
 * on another list) alerts again. Rows from before the hit was keyed have `list` '' and clear nothing
 * (the migration copied them to keyed rows from the cleared transaction's matches).
 */
export const monitoringSanctionsAllowlist = pgTable(
  'monitoring_sanctions_allowlist',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    /** The screened party's name: lower-cased, trimmed, inner whitespace collapsed. */
    nameKey: text('name_key').notNull(),
    /** account_identifier or wallet address of the party; '' when it had none. */
    identifier: text('identifier').notNull(),
    /** The cleared hit's list (its display name, e.g. `OFAC SDN List`); '' on rows from before. */
    list: text('list').notNull().default(''),
    /** The cleared hit's entry on that list; '' on the sandbox list (and rows from before). */
    entryId: text('entry_id').notNull().default(''),
    /** The list version in which the hit was cleared (for the record; the entry id is the key). */
    listVersion: text('list_version'),
    monitoredTransactionId: uuid('monitored_transaction_id'),
    createdByAccountId: uuid('created_by_account_id'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('monitoring_allowlist_hit_uq').on(t.clientId, t.nameKey, t.identifier, t.list, t.entryId),
  ],
);

export type MonitoredTransactionRow = typeof monitoredTransactions.$inferSelect;
export type MonitoredTransactionInsert = typeof monitoredTransactions.$inferInsert;
