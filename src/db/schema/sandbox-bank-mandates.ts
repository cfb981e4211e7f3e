import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import type { MandateStatus } from './recurring-payments';

/** The sandbox bank's VRP mandates (its own state, like sandbox_bank_sessions). */
export const sandboxBankMandates = pgTable(
  'sandbox_bank_mandates',
  {
    id: idColumn('id'),
    mandateRef: text('mandate_ref').notNull(),
    bankId: text('bank_id').notNull(),
    merchantName: text('merchant_name').notNull(),
    currency: text('currency').notNull(),
    maxAmountPerPayment: text('max_amount_per_payment').notNull(),
    periodicLimit: text('periodic_limit').notNull(),
    /** awaiting_authorization | authorized | rejected | expired | revoked */
    status: text('status').$type<MandateStatus>().notNull(),
    returnUrl: text('return_url'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('sandbox_bank_mandates_ref_uq').on(t.mandateRef)],
);

/** Payments the sandbox bank executes under a mandate; `settle_at` is its settlement timer. */
export const sandboxBankMandatePayments = pgTable(
  'sandbox_bank_mandate_payments',
  {
    id: idColumn('id'),
    refId: text('ref_id').notNull(),
    mandateRef: text('mandate_ref').notNull(),
    attemptNumber: integer('attempt_number').notNull(),
    /** The code reported at settle_at (completed, rejected, rejected_insufficient_funds), null = stays processing. */
    outcome: text('outcome'),
    settleAt: ts('settle_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('sandbox_bank_mandate_payments_ref_uq').on(t.refId),
    index('sandbox_bank_mandate_payments_settle_idx').on(t.settleAt).where(sql`${t.settleAt} is not null`),
  ],
);
