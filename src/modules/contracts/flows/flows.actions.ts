/** A contract flow's `allowed_actions`, from the flow machine (docs/platform.md, "allowed_actions"). */

import type { ContractFlowStatus } from '../../../db/schema/index';
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../../platform/actions';
import { flowMachine, isDraftFlow } from './flows.machine';

type FlowState = { status: ContractFlowStatus; archived_at: string | null };
const always = () => true;

export const flowActions = defineActions(flowMachine, (f: FlowState) => f.status, {
  edit: { permission: 'contracts.templates.write', statuses: isDraftFlow },
  delete: { permission: 'contracts.templates.write', statuses: isDraftFlow },
  activate: { permission: 'contracts.templates.write', triggers: ['activate'], when: (f) => !f.archived_at },
  archive: { permission: 'contracts.templates.write', statuses: always, when: (f) => !f.archived_at },
  unarchive: { permission: 'contracts.templates.write', statuses: always, when: (f) => !!f.archived_at },
});

export const FlowActionsSchema = allowedActionsSchema(flowActions, {
  edit: 'PATCH /contracts/workflows/{flow_id} (draft)',
  delete: 'DELETE /contracts/workflows/{flow_id} (draft)',
  activate: 'POST /contracts/workflows/{flow_id}/activate (draft, not archived)',
  archive: 'POST /contracts/workflows/{flow_id}/archive (not archived)',
  unarchive: 'POST /contracts/workflows/{flow_id}/unarchive (archived)',
});

export function withFlowActions<V extends FlowState>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: flowActions.of(view, viewer) });
}
