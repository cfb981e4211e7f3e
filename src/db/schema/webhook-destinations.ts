import { desc, sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

/**
 * Additional webhook endpoints of a client, each with its own signing secret (encrypted at rest,
 * it must be readable to sign) and its own event-type filter (empty = all). Deleting one is a
 * soft delete so the delivery history keeps pointing at it.
 */
export const webhookDestinations = pgTable(
  'webhook_destinations',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    url: text('url').notNull(),
    description: text('description'),
    eventTypes: jsonb('event_types').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    enabled: boolean('enabled').notNull().default(true),
    secretEnc: text('secret_enc').notNull(),
    deletedAt: ts('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_destinations_client_created_idx').on(t.clientId, desc(t.createdAt))],
);
