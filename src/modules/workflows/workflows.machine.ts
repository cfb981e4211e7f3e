/**
 * The status machines of workflows: definitions (DRAFT -> PUBLISHED), runs and steps. Nothing else
 * decides a status. Runs are held under a lease while the engine executes them, so the engine's
 * moves are compare-and-set on the lease token (workflows.repo.ts `updateLeasedRun`); a cancel of
 * the locked run goes through the platform's `transition`. Both follow the tables here.
 */
import {
  WORKFLOW_DEFINITION_STATUSES,
  WORKFLOW_RUN_STATUSES,
  WORKFLOW_STEP_STATUSES,
  type WorkflowDefinitionStatus,
  type WorkflowRunStatus,
  type WorkflowStepStatus,
} from '../../db/schema/index';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { WorkflowMessages } from './workflows.messages';

export const DEFINITION_STATUSES = WORKFLOW_DEFINITION_STATUSES;
export type DefinitionStatus = WorkflowDefinitionStatus;

export const DEFINITION_TRANSITIONS = {
  publish: { from: ['DRAFT'], to: 'PUBLISHED' },
} as const satisfies Record<string, { from: readonly DefinitionStatus[]; to: DefinitionStatus }>;

export const definitionMachine = defineMachine({
  name: 'workflow definition',
  statuses: DEFINITION_STATUSES,
  transitions: DEFINITION_TRANSITIONS,
  terminal: ['PUBLISHED'],
  refused: () => badRequest(WorkflowMessages.alreadyPublished),
});

/** Only drafts are edited; published definitions are immutable. */
export const isEditable = (s: DefinitionStatus): boolean => s === 'DRAFT';
export const canPublish = (s: DefinitionStatus): boolean => definitionMachine.can('publish', s);
/** Runs start only on published, non-archived definitions. */
export const canStartRun = (s: DefinitionStatus, archived: boolean): boolean =>
  s === 'PUBLISHED' && !archived;

export const RUN_STATUSES = WORKFLOW_RUN_STATUSES;
export type RunStatus = WorkflowRunStatus;

export const RUN_TRANSITIONS = {
  /** The engine claimed the run and executes its next step. */
  resume: { from: ['pending', 'running', 'waiting'], to: 'running' },
  /** A wait node parked the run until its due time. */
  park: { from: ['running'], to: 'waiting' },
  complete: { from: ['running'], to: 'completed' },
  fail: { from: ['running'], to: 'failed' },
  cancel: { from: ['pending', 'running', 'waiting'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly RunStatus[]; to: RunStatus }>;

export type RunTransition = keyof typeof RUN_TRANSITIONS;

/** A cancel of a finished run is refused with its 400 naming the status. */
export const runMachine = defineMachine({
  name: 'workflow run',
  statuses: RUN_STATUSES,
  transitions: RUN_TRANSITIONS,
  terminal: ['completed', 'failed', 'canceled'],
  refused: (_t, from) => badRequest(WorkflowMessages.runNotCancelable(from)),
});

export const runSourcesOf = runMachine.sources;
export const canApplyRun = runMachine.can;
export const isTerminalRun = runMachine.isTerminal;
export const ACTIVE_RUN_STATUSES = RUN_STATUSES.filter((s) => !isTerminalRun(s));

export const STEP_STATUSES = WORKFLOW_STEP_STATUSES;
export type StepStatus = WorkflowStepStatus;
