/** Projects: the client's containers for payments, optionally bound to an opco; frozen only by staff. */

import type { DbOrTx } from '../../db/client';
import type { Deps } from '../../deps';
import { emitEvent } from '../../outbox/emit';
import { NO_ACTIONS } from '../../platform/actions';
import { badRequest, notFound } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { type ActivityChanges, diffChanges, recordActivity } from '../activity/activity-writer.service';
import { isBindable } from '../opcos/opcos.machine';
import { findOpcoForShare } from '../opcos/opcos.repo';
import { withProjectActions } from './projects.actions';
import { projectMachine, projectStateOf } from './projects.machine';
import {
  findClientProject,
  findProjectForUpdate,
  insertProject,
  listClientProjects,
  type ProjectChanges,
  type ProjectRow,
  updateProject as updateProjectRow,
} from './projects.repo';

type D = Pick<Deps, 'db' | 'clock'>;

export function toProjectView(p: ProjectRow) {
  return {
    project_id: p.id,
    project_name: p.projectName,
    opco_id: p.opcoId,
    is_frozen: p.isFrozen,
    archived_at: p.archivedAt?.toISOString() ?? null,
    created_at: p.createdAt.toISOString(),
  };
}

/**
 * The opco a project may be bound to: the client's own (another client's is 400, not 404, as the
 * spec names it), not rejected or deactivated. Locks the opco row until the transaction ends so a
 * concurrent deactivation cannot slip in between the check and the write.
 */
async function checkBindableOpco(tx: DbOrTx, clientId: string, opcoId: string): Promise<void> {
  const opco = await findOpcoForShare(tx, opcoId);
  if (!opco) throw notFound(M.opcoNotFound);
  if (opco.clientId !== clientId) throw badRequest(M.opcoOtherClient);
  if (!isBindable(opco.status)) throw badRequest(M.opcoNotBindable);
}

async function loadProject(db: DbOrTx, clientId: string, projectId: string): Promise<ProjectRow> {
  const p = await findClientProject(db, clientId, projectId);
  if (!p) throw notFound(M.projectNotFound);
  return p;
}

export async function createProject(
  deps: D,
  clientId: string,
  input: { project_name: string; opco_id?: string | null },
) {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    if (input.opco_id) await checkBindableOpco(tx, clientId, input.opco_id);
    const created = await insertProject(tx, {
      clientId,
      projectName: input.project_name,
      opcoId: input.opco_id ?? null,
      createdAt: now,
      updatedAt: now,
    });
    await audit(tx, clientId, 'project.created', created, now, {
      project_name: { from: null, to: created.projectName },
      opco_id: { from: null, to: created.opcoId },
    });
    return created;
  });
  return toProjectView(row);
}

export async function getProject(deps: Pick<Deps, 'db'>, clientId: string, projectId: string) {
  return toProjectView(await loadProject(deps.db, clientId, projectId));
}

export async function listProjects(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  includeArchived: boolean,
  q?: string,
) {
  const { rows, total } = await listClientProjects(deps.db, clientId, page, includeArchived, q);
  return { projects: rows.map(toProjectView), pagination: paginationMeta(total, page) };
}

export async function updateProject(
  deps: D,
  clientId: string,
  projectId: string,
  input: { project_name?: string; opco_id?: string | null },
) {
  const row = await deps.db.transaction(async (tx) => {
    const current = await loadProject(tx, clientId, projectId);
    const changes: ProjectChanges = { updatedAt: deps.clock.now() };
    if (input.project_name !== undefined) changes.projectName = input.project_name;
    if (input.opco_id !== undefined) {
      if (input.opco_id !== null && input.opco_id !== current.opcoId) {
        await checkBindableOpco(tx, clientId, input.opco_id);
      }
      changes.opcoId = input.opco_id;
    }
    const updated = (await updateProjectRow(tx, current.id, changes))!;
    await audit(
      tx,
      clientId,
      'project.updated',
      updated,
      deps.clock.now(),
      diffChanges(
        { project_name: current.projectName, opco_id: current.opcoId },
        { project_name: updated.projectName, opco_id: updated.opcoId },
      ),
    );
    return updated;
  });
  return toProjectView(row);
}

/** Archive hides the project from default lists; idempotent (a move the machine refuses is a no-op). */
export async function setProjectArchived(deps: D, clientId: string, projectId: string, archived: boolean) {
  const current = await loadProject(deps.db, clientId, projectId);
  if (!projectMachine.can(archived ? 'archive' : 'unarchive', projectStateOf(current.archivedAt)))
    return toProjectView(current);
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const updated = (await updateProjectRow(tx, current.id, {
      archivedAt: archived ? now : null,
      updatedAt: now,
    }))!;
    await audit(tx, clientId, archived ? 'project.archived' : 'project.unarchived', updated, now, {
      archived: { from: !archived, to: archived },
    });
    return updated;
  });
  return toProjectView(row);
}

/**
 * Staff freeze/unfreeze. Emits project.frozen_changed (in the same transaction) only when the
 * flag actually changes. A staff view: no client action.
 */
export async function setProjectFrozen(deps: D, projectId: string, frozen: boolean, reason: string | null) {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const current = await findProjectForUpdate(tx, projectId);
    if (!current) throw notFound(M.projectNotFound);
    if (current.isFrozen === frozen) return current;
    const updated = (await updateProjectRow(tx, projectId, {
      isFrozen: frozen,
      frozenReason: frozen ? reason : null,
      updatedAt: now,
    }))!;
    await emitEvent(tx, {
      clientId: updated.clientId,
      type: 'project.frozen_changed',
      occurredAt: now,
      dedupKey: `project:${projectId}:frozen:${current.isFrozen}:${frozen}:${newId()}`,
      data: {
        project_id: updated.id,
        project_name: updated.projectName,
        previous_is_frozen: current.isFrozen,
        current_is_frozen: frozen,
        source: 'admin',
        actor_type: 'service_internal',
        actor_id: null,
      },
    });
    await audit(tx, updated.clientId, frozen ? 'project.frozen' : 'project.unfrozen', updated, now, {
      is_frozen: { from: current.isFrozen, to: frozen },
    });
    return updated;
  });
  return withProjectActions(toProjectView(row), NO_ACTIONS);
}

function audit(
  tx: DbOrTx,
  clientId: string,
  action: string,
  p: { id: string; projectName: string },
  at: Date,
  changes: ActivityChanges | null,
) {
  return recordActivity(tx, {
    clientId,
    action,
    at,
    target: { type: 'project', id: p.id, label: p.projectName },
    changes,
  });
}
