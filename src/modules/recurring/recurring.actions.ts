/** A recurring payment's `allowed_actions`, from its machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { isTerminalRecurring, type RecurringStatus, recurringMachine } from './recurring.machine';

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
