import { desc, sql } from 'drizzle-orm';
import { index, integer, jsonb, numeric, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { projects } from './projects';
import { transactions } from './transactions';

/** pending (written, not yet handed to the network), processing, succeeded, failed, canceled. */
export const REFUND_STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'canceled'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export const REFUND_RECONCILIATION_STATES = ['none', 'manual_review_required'] as const;
export type RefundReconciliationState = (typeof REFUND_RECONCILIATION_STATES)[number];

/**
 * A refund of a paid payment (modules/refunds). The status column is moved only by
 * refunds.machine.ts; the sums the transaction keeps (refunded_amount, refund_held_amount) move in
 * the same transaction.
 */
export const refunds = pgTable(
  'refunds',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => transactions.id),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    /** Decimal string at the currency's scale; never a float. */
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<RefundStatus>().notNull().default('pending'),
    reason: text('reason'),
    /** Why the network refused or failed it (a sentence safe to show the merchant). */
    failureReason: text('failure_reason'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** The network's id of the refund, once it has one. */
    networkRefundId: text('network_refund_id'),
    /** Raw upstream status of the last read (logs and support; never shown to payers). */
    providerStatus: text('provider_status'),
    /** Set (compare-and-set, while pending) just before the refund is handed to the network: no cancel after. */
    submittedAt: ts('submitted_at'),
    /** When the reconciliation sweep reads a processing refund next; null = not scheduled. */
    networkCheckAt: ts('network_check_at'),
    /**
     * `none`, or `manual_review_required`: the network cannot say whether the money moved (no final
     * status, or an earlier attempt that cannot be found). The refund stays processing and its amount
     * stays held; a later final status clears it.
     */
    reconciliationState: text('reconciliation_state')
      .$type<RefundReconciliationState>()
      .notNull()
      .default('none'),
    /** Why it is held for review (a sentence safe to show the merchant); null unless held. */
    reviewReason: text('review_reason'),
    /** Reads since the last news (the sweep's backoff). */
    networkChecks: integer('network_checks').notNull().default(0),
    completedAt: ts('completed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('refunds_client_created_idx').on(t.clientId, desc(t.createdAt), desc(t.id)),
    index('refunds_client_status_created_idx').on(t.clientId, t.status, desc(t.createdAt)),
    index('refunds_client_review_created_idx')
      .on(t.clientId, desc(t.createdAt))
      .where(sql`reconciliation_state = 'manual_review_required'`),
    index('refunds_client_project_created_idx').on(t.clientId, t.projectId, desc(t.createdAt)),
    index('refunds_transaction_created_idx').on(t.transactionId, t.createdAt, t.id),
    uniqueIndex('refunds_network_refund_id_uq')
      .on(t.networkRefundId)
      .where(sql`network_refund_id is not null`),
    index('refunds_network_check_idx')
      .on(t.networkCheckAt)
      .where(sql`status = 'processing' and network_check_at is not null`),
  ],
);

/** The sandbox bank's refunds (its own state, like sandbox_bank_sessions); `settle_at` is its settlement timer. */
export const sandboxBankRefunds = pgTable(
  'sandbox_bank_refunds',
  {
    id: idColumn('id'),
    /** Our refund id (the network's idempotency reference). */
    refundId: text('refund_id').notNull(),
    networkRefundId: text('network_refund_id').notNull(),
    originalTransferId: text('original_transfer_id').notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    /** The sandbox bank's own refund status (the bank port's refund outcomes). */
    status: text('status').$type<'processing' | 'succeeded' | 'failed'>().notNull(),
    /** The outcome reported at settle_at (succeeded, failed), null = stays processing. */
    outcome: text('outcome').$type<'succeeded' | 'failed'>(),
    reason: text('reason'),
    settleAt: ts('settle_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('sandbox_bank_refunds_refund_uq').on(t.refundId),
    index('sandbox_bank_refunds_settle_idx').on(t.settleAt).where(sql`${t.settleAt} is not null`),
  ],
);
