/**
 * The two status machines of workflows: definitions (DRAFT -> PUBLISHED) and runs. Nothing else
 * decides a status; run transitions are persisted as compare-and-set updates (workflows.repo.ts).
 */

export const DEFINITION_STATUSES = ['DRAFT', 'PUBLISHED'] as const;
export type DefinitionStatus = (typeof DEFINITION_STATUSES)[number];

export const DEFINITION_TRANSITIONS = {
  publish: { from: ['DRAFT'], to: 'PUBLISHED' },
} as const satisfies Record<string, { from: readonly DefinitionStatus[]; to: DefinitionStatus }>;

/** Only drafts are edited; published definitions are immutable. */
export const isEditable = (s: DefinitionStatus): boolean => s === 'DRAFT';
export const canPublish = (s: DefinitionStatus): boolean =>
  (DEFINITION_TRANSITIONS.publish.from as readonly DefinitionStatus[]).includes(s);
/** Runs start only on published, non-archived definitions. */
export const canStartRun = (s: DefinitionStatus, archived: boolean): boolean =>
  s === 'PUBLISHED' && !archived;

export const RUN_STATUSES = ['pending', 'running', 'waiting', 'completed', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

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

export function runSourcesOf(t: RunTransition): readonly RunStatus[] {
  return RUN_TRANSITIONS[t].from;
}

export function canApplyRun(t: RunTransition, from: RunStatus): boolean {
  return (RUN_TRANSITIONS[t].from as readonly RunStatus[]).includes(from);
}

export const isTerminalRun = (s: RunStatus): boolean =>
  s === 'completed' || s === 'failed' || s === 'canceled';
export const ACTIVE_RUN_STATUSES = RUN_STATUSES.filter((s) => !isTerminalRun(s));

export const STEP_STATUSES = ['running', 'waiting', 'completed', 'failed', 'canceled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
