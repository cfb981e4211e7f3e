import { numeric, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, updatedAt } from './columns';

/** A client's price list (staff PUT /admin/clients/{id}/billing-prices); unit prices are NUMERIC. */
export const billingPriceLists = pgTable('billing_price_lists', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id),
  currency: text('currency').notNull(),
  platformFeeMonthly: numeric('platform_fee_monthly').notNull(),
  transactionSuccess: numeric('transaction_success').notNull(),
  kycVerification: numeric('kyc_verification').notNull(),
  kybVerification: numeric('kyb_verification').notNull(),
  walletScreening: numeric('wallet_screening').notNull(),
  travelRuleTransfer: numeric('travel_rule_transfer').notNull(),
  contractRequest: numeric('contract_request').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
