import { desc, sql } from 'drizzle-orm';
import { index, integer, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { businessCustomers, kycUsers } from './customers';
import { projects } from './projects';

export const TRANSACTION_STATUSES = [
  'pending',
  'processing',
  'success',
  'failed',
  'expired',
  'canceled',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/**
 * A payment (transaction). The status column is moved only by modules/payments/payments.machine.ts
 * through compare-and-set updates; every move is a row of transaction_status_events.
 */
export const transactions = pgTable(
  'transactions',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    userId: uuid('user_id').references(() => kycUsers.id),
    businessCustomerId: uuid('business_customer_id').references(() => businessCustomers.id),
    contractRequestId: uuid('contract_request_id'),
    /** What created the payment: paylink (the API), bulk, schedule, recurring, workflow or contract. */
    originType: text('origin_type').notNull().default('paylink'),
    /** The creating resource (bulk job, schedule, recurring payment, workflow run, contract request). */
    originId: uuid('origin_id'),
    /** Decimal string normalized to the currency's minor units; never a float. */
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    description: text('description'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** pending, processing, success, failed, expired, canceled */
    status: text('status').$type<TransactionStatus>().notNull().default('pending'),
    /** Last known detail status (normalized; a raw upstream code is never stored). */
    providerStatus: text('provider_status'),
    /** none, awaiting_provider_confirmation, manual_review_required */
    reconciliationState: text('reconciliation_state').notNull().default('none'),
    statusReason: text('status_reason'),
    /** Current payment-network session reference; replaced when the payer restarts an expired session. */
    refId: text('ref_id').notNull(),
    /** Network identifier of the current session; null until the payer picked a bank. */
    transferId: text('transfer_id'),
    /**
     * The payer's account as the bank shared it for refunds (Token.io `refundDetails.refundAccount`),
     * AES-GCM sealed with the data key (shared/crypto `encrypt`); never logged, never in responses or webhooks.
     */
    refundAccountEnc: text('refund_account_enc'),
    /** Bank picked for the current session (sandbox bank id). */
    bankId: text('bank_id'),
    /** Where this payment's payer returns after checkout instead of the client's callback_url (optional). */
    redirectUrl: text('redirect_url'),
    /** Opaque token of the hosted checkout URL. */
    checkoutToken: text('checkout_token').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** Last accepted POST refresh-status (the per-transaction cooldown lives in the database). */
    lastRefreshAt: ts('last_refresh_at'),
    /** Polling networks (Token.io): when the reconciliation worker reads the payment next; null = never. */
    networkCheckAt: ts('network_check_at'),
    /** Reads since the last news (the worker's backoff). */
    networkChecks: integer('network_checks').notNull().default(0),
    completedAt: ts('completed_at'),
    /** Sum of the succeeded refunds (modules/refunds), moved with each refund's status. */
    refundedAmount: numeric('refunded_amount').notNull().default('0'),
    /** Sum of the refunds still under way (pending, processing): reserved, not refundable again. */
    refundHeldAmount: numeric('refund_held_amount').notNull().default('0'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('transactions_checkout_token_uq').on(t.checkoutToken),
    uniqueIndex('transactions_ref_id_uq').on(t.refId),
    index('transactions_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('transactions_client_status_created_idx').on(t.clientId, t.status, desc(t.createdAt)),
    index('transactions_client_project_created_idx').on(t.clientId, t.projectId, desc(t.createdAt)),
    index('transactions_client_user_created_idx').on(t.clientId, t.userId, desc(t.createdAt)),
    // `q` search (prefix, case-insensitive; docs/platform.md "Search"): one btree per field
    index('transactions_client_ref_search_idx').on(t.clientId, sql`lower(${t.refId}) text_pattern_ops`),
    index('transactions_client_description_search_idx').on(
      t.clientId,
      sql`lower(${t.description}) text_pattern_ops`,
    ),
    index('transactions_client_business_created_idx').on(t.clientId, t.businessCustomerId, desc(t.createdAt)),
    index('transactions_client_origin_created_idx').on(t.clientId, t.originType, desc(t.createdAt)),
    index('transactions_client_contract_idx')
      .on(t.clientId, t.contractRequestId)
      .where(sql`contract_request_id is not null`),
    // The retention sweep of the payer's sealed refund account (SVC_TOKENIO_REFUND_ACCOUNT_RETENTION_DAYS).
    index('transactions_refund_account_retention_idx')
      .on(t.createdAt)
      .where(sql`refund_account_enc is not null`),
    index('transactions_processing_expiry_idx').on(t.expiresAt).where(sql`status = 'processing'`),
    index('transactions_network_check_idx')
      .on(t.networkCheckAt)
      .where(sql`status in ('pending', 'processing') and network_check_at is not null`),
    // The list's reconciliation_state=manual_review_required filter.
    index('transactions_client_review_created_idx')
      .on(t.clientId, desc(t.createdAt), desc(t.id))
      .where(sql`reconciliation_state = 'manual_review_required'`),
    // Payments held for review after they ended (money may have moved): still read at a slow cadence.
    index('transactions_review_check_idx')
      .on(t.networkCheckAt)
      .where(sql`status = 'expired' and reconciliation_state = 'manual_review_required'`),
    // Billing usage: a client's successful payments by completion time.
    index('transactions_client_success_completed_idx')
      .on(t.clientId, t.completedAt)
      .where(sql`status = 'success'`),
  ],
);

/** The timeline: one row per status change, detail-only code, manual review or session restart. */
export const transactionStatusEvents = pgTable(
  'transaction_status_events',
  {
    id: idColumn('id'),
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => transactions.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    /** Null only on the creation entry. */
    fromStatus: text('from_status').$type<TransactionStatus>(),
    toStatus: text('to_status').$type<TransactionStatus>().notNull(),
    /** Normalized detail status (`unknown` for an unrecognized upstream code); null for internal entries. */
    providerStatus: text('provider_status'),
    reconciliationState: text('reconciliation_state').notNull(),
    /** created, transition, detail, manual_review, ignored, session_restarted */
    kind: text('kind').notNull(),
    reason: text('reason'),
    refId: text('ref_id'),
    actorType: text('actor_type'),
    actorAccountId: text('actor_account_id'),
    occurredAt: ts('occurred_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('transaction_status_events_tx_idx').on(t.transactionId, t.createdAt, t.id)],
);

/**
 * Idempotency of POST /checkout/paylink across processes and nodes: the unique (client_id, key)
 * constraint decides the single winner of a concurrent burst.
 */
export const paymentIdempotencyKeys = pgTable(
  'payment_idempotency_keys',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    idempotencyKey: text('idempotency_key').notNull(),
    /** `api` for merchant keys, `platform` for keys the platform derives (bulk:…, schedule:…): never colliding. */
    scope: text('scope').notNull().default('api'),
    /** sha256 of the canonical JSON of the request body. */
    fingerprint: text('fingerprint').notNull(),
    /** processing, completed */
    state: text('state').notNull().default('processing'),
    transactionId: uuid('transaction_id').references(() => transactions.id),
    createdAt: ts('created_at').notNull(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    uniqueIndex('payment_idempotency_keys_client_scope_key_uq').on(t.clientId, t.scope, t.idempotencyKey),
  ],
);
