/** A project's `allowed_actions`, from the project machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { isEditableProject, projectMachine, projectStateOf } from './projects.machine';

export const projectActions = defineActions(
  projectMachine,
  (p: { archived_at: string | null }) => projectStateOf(p.archived_at),
  {
    edit: { permission: 'projects.write', statuses: isEditableProject },
    archive: { permission: 'projects.write', triggers: ['archive'] },
    unarchive: { permission: 'projects.write', triggers: ['unarchive'] },
  },
);

export const ProjectActionsSchema = allowedActionsSchema(projectActions, {
  edit: 'PATCH /projects/{project_id} (archived or not)',
  archive: 'POST /projects/{project_id}/archive (not archived; on an archived project it changes nothing)',
  unarchive: 'POST /projects/{project_id}/unarchive (archived; on an active project it changes nothing)',
});

/** The API view with the caller's actions (staff views pass NO_ACTIONS). */
export function withProjectActions<V extends { archived_at: string | null }>(view: V, viewer: ActionViewer) {
  return Object.assign(view, { allowed_actions: projectActions.of(view, viewer) });
}
