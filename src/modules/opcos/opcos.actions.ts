/** An opco's `allowed_actions`, from the opco machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import type { OpcoStatus } from './opcos.machine';
import { isBindable, isDeletable, isEditable, opcoMachine } from './opcos.machine';

export const opcoActions = defineActions(opcoMachine, (o: { status: OpcoStatus }) => o.status, {
  edit: { permission: 'opcos.write', statuses: isEditable },
  submit: { permission: 'opcos.write', triggers: ['submit_sandbox', 'submit_production'] },
  delete: { permission: 'opcos.write', statuses: isDeletable },
  add_project: { permission: 'projects.write', statuses: isBindable },
});

export const OpcoActionsSchema = allowedActionsSchema(opcoActions, {
  edit: 'PATCH /opcos/{opco_id} (draft)',
  submit: 'POST /opcos/{opco_id}/submit (draft)',
  delete: 'DELETE /opcos/{opco_id} (draft; 409 while a project is bound to it)',
  add_project:
    'POST /projects, or PATCH /projects/{project_id}, with this opco_id (not rejected or deactivated)',
});

/** The API view with the caller's actions (staff views pass NO_ACTIONS: they list no client action). */
export function withOpcoActions<V extends { status: OpcoStatus }>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: opcoActions.of(view, viewer) });
}
