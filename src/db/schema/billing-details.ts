import { jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { updatedAt } from './columns';

/** The client's billing details (PUT /billing/details), copied onto each invoice at finalization. */
export const billingDetails = pgTable('billing_details', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id),
  companyName: text('company_name').notNull(),
  address: jsonb('address').$type<Record<string, string | null> | null>(),
  vatNumber: text('vat_number'),
  billingEmail: text('billing_email').notNull(),
  purchaseOrderNumber: text('purchase_order_number'),
  updatedAt: updatedAt(),
});
