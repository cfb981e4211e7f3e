import { desc } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, ts } from './columns';

/**
 * The transactional outbox: one row per event, written in the same transaction as the change
 * that caused it. Delivery rows (one per destination) are created alongside; see src/outbox.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    type: text('type').notNull(),
    version: text('version').notNull().default('v1'),
    occurredAt: ts('occurred_at').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    /** Deduplication at source: the same key is never emitted twice. */
    dedupKey: text('dedup_key').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('events_dedup_key_uq').on(t.dedupKey),
    index('events_client_created_idx').on(t.clientId, desc(t.createdAt)),
  ],
);
