import { desc, sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { bytea, createdAt, idColumn, ts, updatedAt } from './columns';
import type { ContractCcRecipient, ContractFieldDef } from './contract-templates';

export interface ContractRequestPayment {
  amount: string;
  currency: string;
  project_id: string;
  user_id: string | null;
  business_customer_id: string | null;
  description: string | null;
  expires_in_seconds: number | null;
  transaction_id: string | null;
  checkout_url: string | null;
  error: string | null;
}

export const CONTRACT_REQUEST_STATUSES = [
  'pending',
  'sent',
  'in_progress',
  'completed',
  'declined',
  'expired',
  'voided',
  'failed',
] as const;
export type ContractRequestStatus = (typeof CONTRACT_REQUEST_STATUSES)[number];

export const PARTICIPANT_STATUSES = [
  'waiting',
  'sent',
  'viewed',
  'completed',
  'declined',
  'bounced',
  'canceled',
] as const;
export type ParticipantStatus = (typeof PARTICIPANT_STATUSES)[number];

/**
 * One sent contract request. `status` moves only through modules/contracts/requests/requests.machine.ts
 * with compare-and-set updates.
 */
export const contractRequests = pgTable(
  'contract_requests',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    title: text('title').notNull(),
    message: text('message'),
    status: text('status').$type<ContractRequestStatus>().notNull(),
    statusReason: text('status_reason'),
    flowId: uuid('flow_id'),
    templateIds: jsonb('template_ids').$type<string[]>().notNull(),
    templateVersions: jsonb('template_versions').$type<number[]>().notNull(),
    externalReference: text('external_reference'),
    delivery: text('delivery').notNull(),
    redirectUrl: text('redirect_url'),
    fieldValues: jsonb('field_values').$type<Record<string, string>>().notNull(),
    ccRecipients: jsonb('cc_recipients').$type<ContractCcRecipient[]>().notNull(),
    payment: jsonb('payment').$type<ContractRequestPayment | null>(),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    expiresAt: ts('expires_at').notNull(),
    reminderIntervalDays: integer('reminder_interval_days'),
    nextReminderAt: ts('next_reminder_at'),
    /** The provider's envelope, once created; null while pending without one (a worker retries). */
    envelopeRef: text('envelope_ref'),
    /** Highest provider revision applied: replays and older notifications change nothing. */
    providerRevision: integer('provider_revision').notNull().default(0),
    /**
     * When a vendor hosting the signing (Documenso) was last read for this live request by the
     * e-signing reconciliation: its webhooks can be lost, so a live envelope is read again on a cadence.
     */
    providerCheckedAt: ts('provider_checked_at'),
    /** The view-only link of `on_send` CC recipients (keyed hash for lookup, the token encrypted). */
    viewTokenHash: text('view_token_hash'),
    viewTokenEnc: text('view_token_enc'),
    certificateSha256: text('certificate_sha256'),
    certificate: bytea('certificate'),
    /** completed requests with a payment whose link is still owed (crash-safe retry). */
    paymentDue: integer('payment_due').notNull().default(0),
    createdByActorType: text('created_by_actor_type'),
    createdByAccountId: uuid('created_by_account_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    sentAt: ts('sent_at'),
    completedAt: ts('completed_at'),
    declinedAt: ts('declined_at'),
    voidedAt: ts('voided_at'),
    voidReason: text('void_reason'),
  },
  (t) => [
    index('contract_requests_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    uniqueIndex('contract_requests_envelope_uq').on(t.envelopeRef),
    index('contract_requests_provider_check_idx')
      .on(t.providerCheckedAt)
      .where(sql`status in ('sent','in_progress') and envelope_ref is not null`),
    uniqueIndex('contract_requests_view_token_uq').on(t.viewTokenHash),
  ],
);

/** One person's part in a request. `status` moves only through modules/contracts/participants/participants.machine.ts. */
export const contractParticipants = pgTable(
  'contract_participants',
  {
    id: idColumn('id'),
    requestId: uuid('request_id')
      .notNull()
      .references(() => contractRequests.id),
    clientId: uuid('client_id').notNull(),
    position: integer('position').notNull(),
    role: text('role').notNull(),
    kind: text('kind').notNull(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    userId: uuid('user_id'),
    businessCustomerId: uuid('business_customer_id'),
    signingOrder: integer('signing_order').notNull(),
    auth: text('auth').notNull(),
    status: text('status').$type<ParticipantStatus>().notNull(),
    /** keyed hash of the signing token (lookup) and the token encrypted (shown as signing_url). */
    tokenHash: text('token_hash'),
    tokenEnc: text('token_enc'),
    otpHash: text('otp_hash'),
    otpExpiresAt: ts('otp_expires_at'),
    otpAttempts: integer('otp_attempts').notNull().default(0),
    otpVerifiedAt: ts('otp_verified_at'),
    signedValues: jsonb('signed_values').$type<Record<string, string>>(),
    lastRemindedAt: ts('last_reminded_at'),
    turnStartedAt: ts('turn_started_at'),
    viewedAt: ts('viewed_at'),
    completedAt: ts('completed_at'),
    declinedAt: ts('declined_at'),
    declineReason: text('decline_reason'),
    /**
     * The e-signing provider's own reference of this participant (Documenso: its recipient id),
     * learnt when the envelope is accepted; null with the sandbox simulator.
     */
    providerRecipientRef: text('provider_recipient_ref'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('contract_participants_request_idx').on(t.requestId, t.position),
    uniqueIndex('contract_participants_token_uq').on(t.tokenHash),
    index('contract_participants_client_email_idx').on(t.clientId, t.email),
  ],
);

/** Original documents (copied at send, so template edits never change a sent request) and sealed ones. */
export const contractDocuments = pgTable(
  'contract_documents',
  {
    id: idColumn('id'),
    requestId: uuid('request_id')
      .notNull()
      .references(() => contractRequests.id),
    clientId: uuid('client_id').notNull(),
    templateId: uuid('template_id').notNull(),
    position: integer('position').notNull(),
    kind: text('kind').notNull(),
    fileName: text('file_name').notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    content: bytea('content').notNull(),
    /** The template's fields as sent (a later template version never changes a sent request). */
    fields: jsonb('fields').$type<ContractFieldDef[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('contract_documents_request_idx').on(t.requestId, t.kind, t.position)],
);

/** The audit trail of a request (GET …/events), oldest first. */
export const contractAuditEvents = pgTable(
  'contract_audit_events',
  {
    id: idColumn('id'),
    requestId: uuid('request_id')
      .notNull()
      .references(() => contractRequests.id),
    participantId: uuid('participant_id'),
    type: text('type').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    occurredAt: ts('occurred_at').notNull(),
    seq: integer('seq').generatedAlwaysAsIdentity(),
  },
  (t) => [index('contract_audit_events_request_idx').on(t.requestId, t.occurredAt, t.seq)],
);
