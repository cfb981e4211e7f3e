import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { idColumn, ts } from './columns';

/**
 * Idempotency of the named areas' "(idem)" endpoints (docs/guides/idempotency.md), held by the unique
 * (client_id, scope, idempotency_key) constraint so it holds across nodes. `scope` names the
 * endpoint; the stored response is replayed for the same key and payload.
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    scope: text('scope').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** sha256 of the canonical JSON of the request payload. */
    fingerprint: text('fingerprint').notNull(),
    /** processing, completed */
    state: text('state').notNull().default('processing'),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body').$type<unknown>(),
    createdAt: ts('created_at').notNull(),
    completedAt: ts('completed_at'),
  },
  (t) => [
    uniqueIndex('idempotency_records_client_scope_key_uq').on(t.clientId, t.scope, t.idempotencyKey),
    index('idempotency_records_created_idx').on(t.createdAt).where(sql`state = 'completed'`),
  ],
);
