/** An opco's `allowed_actions`, from the opco machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import type { OpcoStatus } from './opcos.machine';
import { isDeletable, isEditable, opcoMachine } from './opcos.machine';

export const opcoActions = defineActions(opcoMachine, (o: { status: OpcoStatus }) => o.status, {
  edit: { permission: 'opcos.write', statuses: isEditable },
  submit: { permission: 'opcos.write', triggers: ['submit_sandbox', 'submit_production'] },
  delete: { permission: 'opcos.write', statuses: isDeletable },
});

export const OpcoActionsSchema = allowedActionsSchema(opcoActions, {
  edit: 'PATCH /opcos/{opco_id} (draft)',
  submit: 'POST /opcos/{opco_id}/submit (draft)',
  delete: 'DELETE /opcos/{opco_id} (draft; 409 while a project is bound to it)',
});

/** The API view with the caller's actions (staff views pass NO_ACTIONS: they list no client action). */
export function withOpcoActions<V extends { status: OpcoStatus }>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: opcoActions.of(view, viewer) });
}
