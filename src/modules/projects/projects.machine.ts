/**
 * A project's archive state as a machine: `archived` while `archived_at` is set. Archive and
 * unarchive are idempotent (the same move again answers the project unchanged), so the table is
 * what `setProjectArchived` and `allowed_actions` read; a refused move is never an answer.
 */
import { defineMachine } from '../../platform/machine';

export const PROJECT_STATES = ['active', 'archived'] as const;
export type ProjectState = (typeof PROJECT_STATES)[number];

export const projectMachine = defineMachine({
  name: 'project',
  statuses: PROJECT_STATES,
  transitions: {
    archive: { from: ['active'], to: 'archived' },
    unarchive: { from: ['archived'], to: 'active' },
  },
  terminal: [],
  refused: (t, from) => {
    throw new Error(`project ${t} from '${from}' is a no-op, not a refusal`);
  },
});

export const projectStateOf = (archivedAt: Date | string | null): ProjectState =>
  archivedAt ? 'archived' : 'active';

/** Name and opco binding can change whether or not the project is archived. */
export const isEditableProject = (_s: ProjectState): boolean => true;
