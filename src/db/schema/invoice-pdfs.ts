import { integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { invoices } from './billing-invoices';
import { clients } from './clients';
import { bytea, createdAt } from './columns';

/**
 * The invoice PDF, rendered once at finalization. Immutable: a database trigger refuses UPDATE and
 * DELETE (drizzle/…_invoice_pdfs_immutable_sql); `sha256` is checked again on every download.
 */
export const invoicePdfs = pgTable('invoice_pdfs', {
  invoiceId: uuid('invoice_id')
    .primaryKey()
    .references(() => invoices.id),
  clientId: uuid('client_id')
    .notNull()
    .references(() => clients.id),
  content: bytea('content').notNull(),
  sha256: text('sha256').notNull(),
  size: integer('size').notNull(),
  createdAt: createdAt(),
});
