import { jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { idColumn, ts } from './columns';
import { workflowRuns } from './workflow-runs';

export const WORKFLOW_STEP_STATUSES = ['running', 'waiting', 'completed', 'failed', 'canceled'] as const;
export type WorkflowStepStatus = (typeof WORKFLOW_STEP_STATUSES)[number];

/**
 * One row per executed node of a run (graphs are acyclic, so a node runs at most once per run).
 * The row is written as `running` before the node calls out: after a crash the engine sees an
 * interrupted step and retries it only when the call is idempotent by run + step.
 */
export const workflowRunSteps = pgTable(
  'workflow_run_steps',
  {
    id: idColumn('id'),
    runId: uuid('run_id')
      .notNull()
      .references(() => workflowRuns.id),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    stepId: text('step_id').notNull(),
    nodeType: text('node_type').notNull(),
    /** running, waiting, completed, failed, canceled */
    status: text('status').$type<WorkflowStepStatus>().notNull(),
    output: jsonb('output').$type<Record<string, unknown>>(),
    error: text('error'),
    /** wait nodes: when the run resumes. */
    resumeAt: ts('resume_at'),
    startedAt: ts('started_at').notNull(),
    finishedAt: ts('finished_at'),
  },
  (t) => [uniqueIndex('workflow_run_steps_run_step_uq').on(t.runId, t.stepId)],
);
