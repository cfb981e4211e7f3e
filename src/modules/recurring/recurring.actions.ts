/**
 * `allowed_actions` of a recurring payment and of its runs, from their machines (docs/platform.md,
 * "allowed_actions").
 */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { isTerminalRecurring, type RecurringStatus, recurringMachine } from './recurring.machine';
import { type RunStatus, runMachine } from './runs.machine';

export const recurringActions = defineActions(
  recurringMachine,
  (d: { status: RecurringStatus }) => d.status,
  {
    edit: { permission: 'recurring.write', statuses: (s) => !isTerminalRecurring(s) },
    pause: { permission: 'recurring.write', triggers: ['pause'] },
    resume: { permission: 'recurring.write', triggers: ['resume'] },
    cancel: { permission: 'recurring.write', triggers: ['cancel'] },
  },
);

export const RecurringActionsSchema = allowedActionsSchema(recurringActions, {
  edit: 'PATCH /recurring-payments/{definition_id} (not in a terminal status)',
  pause: 'POST /recurring-payments/{definition_id}/pause (active)',
  resume: 'POST /recurring-payments/{definition_id}/resume (paused)',
  cancel: 'POST /recurring-payments/{definition_id}/cancel (pending_authorization, active or paused)',
});

export function withRecurringActions<V extends { status: RecurringStatus }>(dto: V, viewer: ActionViewer) {
  return Object.assign(dto, { allowed_actions: recurringActions.of(dto, viewer) });
}

/**
 * A run with what its endpoints check beyond the run: its recurring payment is not terminal
 * (`open`), its mandate can be charged now (`chargeable`), and the attempts a run may have in all.
 */
export interface RunActionRow {
  run: { status: RunStatus; attempts: readonly { attempt_number: number; outcome: string }[] };
  open: boolean;
  chargeable: boolean;
  maxAttempts: number;
}

/** The run's latest attempt failed and another is allowed (POST …/retry's own checks on the run). */
function retryable(x: RunActionRow): boolean {
  const last = x.run.attempts.reduce<RunActionRow['run']['attempts'][number] | undefined>(
    (a, b) => (a && a.attempt_number > b.attempt_number ? a : b),
    undefined,
  );
  return last?.outcome === 'failed' && x.run.attempts.length < x.maxAttempts;
}

export const runActions = defineActions(runMachine, (x: RunActionRow) => x.run.status, {
  retry: {
    permission: 'recurring.write',
    triggers: ['manual_retry'],
    when: (x) => x.open && x.chargeable && retryable(x),
  },
  skip: { permission: 'recurring.write', triggers: ['skip'], when: (x) => x.open },
});

export const RunActionsSchema = allowedActionsSchema(runActions, {
  retry:
    'POST /recurring-payments/{definition_id}/retry with this `run_id` (failed or retry_scheduled, its latest ' +
    'attempt failed, attempts left, the mandate authorized; refused while that payment is held for review)',
  skip: 'POST /recurring-payments/{definition_id}/runs/{run_id}/skip (scheduled)',
});

/** The run's view with the caller's actions on it, given its recurring payment (`d`). */
export function withRunActions<V extends RunActionRow['run']>(
  run: V,
  viewer: ActionViewer,
  d: { status: RecurringStatus; chargeable: boolean },
  maxAttempts: number,
) {
  const row = { run, open: !isTerminalRecurring(d.status), chargeable: d.chargeable, maxAttempts };
  return { ...run, allowed_actions: runActions.of(row, viewer) };
}
