import { pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/**
 * The sandbox bank simulator's own state: one row per payment session (ref_id). It stands in for
 * the payment network's database; the payments module never reads it directly.
 */
export const sandboxBankSessions = pgTable(
  'sandbox_bank_sessions',
  {
    id: idColumn('id'),
    refId: text('ref_id').notNull(),
    transactionId: uuid('transaction_id').notNull(),
    amount: text('amount').notNull(),
    currency: text('currency').notNull(),
    merchantName: text('merchant_name').notNull(),
    /** Bank picked by the payer; null until authorization starts. */
    bankId: text('bank_id'),
    transferId: text('transfer_id'),
    /** Latest detail status the network reported for this session. */
    providerStatus: text('provider_status').notNull().default('initiated'),
    /** Where the bank sends the payer back after authorization. */
    returnUrl: text('return_url'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('sandbox_bank_sessions_ref_uq').on(t.refId),
    uniqueIndex('sandbox_bank_sessions_transfer_uq').on(t.transferId),
  ],
);
