import { desc, sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';

export const WORKFLOW_DEFINITION_STATUSES = ['DRAFT', 'PUBLISHED'] as const;
export type WorkflowDefinitionStatus = (typeof WORKFLOW_DEFINITION_STATUSES)[number];

/**
 * A client's workflow definitions (system templates live in code, not here). A definition is
 * edited as a DRAFT and immutable once PUBLISHED. A published webhook-triggered definition has an
 * unguessable trigger token (the public trigger URL) and an HMAC signing secret, encrypted at rest.
 */
export const workflowDefinitions = pgTable(
  'workflow_definitions',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    name: text('name').notNull(),
    description: text('description'),
    graph: jsonb('graph').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<WorkflowDefinitionStatus>().notNull().default('DRAFT'),
    /** `manual` or `webhook`, copied from the graph for queries. */
    triggerType: text('trigger_type').notNull().default('manual'),
    triggerToken: text('trigger_token'),
    triggerSecretEnc: text('trigger_secret_enc'),
    /** The template or own workflow this one was forked from. */
    forkedFromId: uuid('forked_from_id'),
    publishedAt: ts('published_at'),
    archivedAt: ts('archived_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('workflow_definitions_client_created_idx').on(t.clientId, desc(t.createdAt)),
    uniqueIndex('workflow_definitions_trigger_token_uq')
      .on(t.triggerToken)
      .where(sql`${t.triggerToken} is not null`),
  ],
);
