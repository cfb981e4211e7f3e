import { desc, sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts, updatedAt } from './columns';
import { workflowDefinitions } from './workflow-definitions';

export const WORKFLOW_RUN_STATUSES = [
  'pending',
  'running',
  'waiting',
  'completed',
  'failed',
  'canceled',
] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];

/**
 * One execution of a published workflow. The engine claims due runs (status pending, running with
 * a lapsed lease, or waiting past due_at) with FOR UPDATE SKIP LOCKED and a lease (locked_until +
 * lease_token); every state change is a compare-and-set on the lease token.
 */
export const workflowRuns = pgTable(
  'workflow_runs',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    definitionId: uuid('definition_id')
      .notNull()
      .references(() => workflowDefinitions.id),
    status: text('status').$type<WorkflowRunStatus>().notNull().default('pending'),
    /** `api` (POST /workflows/{id}/runs) or `webhook` (signed trigger). */
    source: text('source').notNull().default('api'),
    input: jsonb('input').$type<Record<string, unknown>>().notNull(),
    /** Outputs of completed steps by step id (the `steps` half of the template context). */
    stepOutputs: jsonb('step_outputs').$type<Record<string, unknown>>().notNull().default({}),
    /** The node to execute next; null once the graph is exhausted. */
    currentStepId: text('current_step_id'),
    errorMessage: text('error_message'),
    idempotencyKey: text('idempotency_key'),
    inputFingerprint: text('input_fingerprint'),
    /** When the engine should look at the run next. */
    dueAt: ts('due_at'),
    lockedUntil: ts('locked_until'),
    leaseToken: uuid('lease_token'),
    /** Number of times the engine claimed the run (crash recovery shows up here). */
    claims: integer('claims').notNull().default(0),
    startedAt: ts('started_at'),
    finishedAt: ts('finished_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('workflow_runs_client_created_idx').on(t.clientId, desc(t.createdAt)),
    index('workflow_runs_definition_created_idx').on(t.definitionId, desc(t.createdAt)),
    index('workflow_runs_due_idx').on(t.dueAt).where(sql`${t.status} in ('pending', 'running', 'waiting')`),
    uniqueIndex('workflow_runs_idempotency_uq')
      .on(t.clientId, t.definitionId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);
