/**
 * Workflow definitions: create, read, list (own plus system templates), edit drafts, delete
 * without runs, fork, publish (DRAFT -> PUBLISHED, immutable afterwards), trigger secrets, archive.
 */

import { workflowDefinitions } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { machineTable, transition } from '../../platform/machine';
import type { ClientAuth } from '../../plugins/auth';
import { decrypt, encrypt } from '../../shared/crypto';
import { badRequest, conflict, notFound } from '../../shared/errors';
import { randomToken } from '../../shared/ids';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import {
  type ActivityInput,
  diffChanges,
  recordActivity,
  withActivity,
} from '../activity/activity-writer.service';
import { canPublish, type DefinitionStatus, definitionMachine, isEditable } from './workflows.machine';
import { WorkflowMessages } from './workflows.messages';
import {
  type DefinitionRow,
  definitionHasRuns,
  deleteDefinition as deleteDefinitionRow,
  findClientDefinition,
  insertDefinition,
  listClientDefinitions,
  updateDefinition,
} from './workflows.repo';
import {
  assertMayUseNodes,
  type Graph,
  UNSUPPORTED_NODE_TYPES,
  validateGraph,
} from './workflows-graph.policy';
import { assertGraphReferences } from './workflows-references.service';
import { findTemplate, WORKFLOW_TEMPLATES, type WorkflowTemplate } from './workflows-templates.service';

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'secrets'>;

const definitionTable = machineTable(definitionMachine, workflowDefinitions, {
  conflict: WorkflowMessages.alreadyPublished,
});

export const TRIGGER_PATH = '/api/v1/workflow-triggers';
export const newTriggerSecret = (): string => `wfsec_${randomToken(32)}`;

export function triggerUrl(deps: Pick<Deps, 'config'>, token: string): string {
  return `${deps.config.publicUrl}${TRIGGER_PATH}/${token}`;
}

export function toDefinitionView(deps: Pick<Deps, 'config'>, d: DefinitionRow) {
  return {
    definition_id: d.id,
    name: d.name,
    description: d.description,
    status: d.status,
    is_template: false,
    trigger_type: d.triggerType as 'manual' | 'webhook',
    trigger_url: d.triggerToken ? triggerUrl(deps, d.triggerToken) : null,
    graph: d.graph as Graph,
    forked_from_id: d.forkedFromId,
    published_at: d.publishedAt?.toISOString() ?? null,
    archived_at: d.archivedAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

export type DefinitionView = ReturnType<typeof toDefinitionView>;

export function toTemplateView(t: WorkflowTemplate): DefinitionView {
  return {
    definition_id: t.id,
    name: t.name,
    description: t.description,
    status: 'PUBLISHED',
    is_template: true,
    trigger_type: t.graph.trigger.type,
    trigger_url: null,
    graph: t.graph,
    forked_from_id: null,
    published_at: t.createdAt.toISOString(),
    archived_at: null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.createdAt.toISOString(),
  };
}

export interface DefinitionInput {
  name: string;
  description?: string | null;
  graph: Graph;
}

export async function loadDefinition(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  id: string,
): Promise<DefinitionRow> {
  const row = await findClientDefinition(deps.db, clientId, id);
  if (!row) throw notFound(WorkflowMessages.workflowNotFound);
  return row;
}

/** A client's own definition for a write: templates are read-only (400), unknown or foreign ones 404. */
async function loadOwnForWrite(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  if (findTemplate(id)) throw badRequest(WorkflowMessages.templateReadOnly);
  return loadDefinition(deps, clientId, id);
}

export async function createDefinition(deps: D, clientId: string, input: DefinitionInput) {
  validateGraph(input.graph);
  await assertGraphReferences(deps.db, clientId, input.graph);
  const now = deps.clock.now();
  const row = await withActivity(
    deps.db,
    (tx) =>
      insertDefinition(tx, {
        clientId,
        name: input.name,
        description: input.description ?? null,
        graph: input.graph as unknown as Record<string, unknown>,
        status: 'DRAFT',
        triggerType: input.graph.trigger.type,
        createdAt: now,
        updatedAt: now,
      }),
    (r) => wfEntry(clientId, 'workflow.created', r, now),
  );
  return toDefinitionView(deps, row);
}

export async function getDefinition(deps: Pick<Deps, 'db' | 'config'>, clientId: string, id: string) {
  const t = findTemplate(id);
  if (t) return toTemplateView(t);
  return toDefinitionView(deps, await loadDefinition(deps, clientId, id));
}

/**
 * Own definitions (newest first) followed by the system templates, paginated as one list.
 * Templates are included unless `include_templates=false` and count towards `total`.
 */
export async function listDefinitions(
  deps: Pick<Deps, 'db' | 'config'>,
  clientId: string,
  page: PageParams,
  opts: { includeArchived: boolean; includeTemplates: boolean; status?: DefinitionStatus },
) {
  const templates =
    opts.includeTemplates && (!opts.status || opts.status === 'PUBLISHED') ? WORKFLOW_TEMPLATES : [];
  const first = await listClientDefinitions(deps.db, clientId, {
    limit: page.pageSize,
    offset: page.offset,
    includeArchived: opts.includeArchived,
    status: opts.status,
  });
  const own = first.rows.map((r) => toDefinitionView(deps, r));
  const room = page.pageSize - own.length;
  const templateStart = Math.max(0, page.offset - first.total);
  const fill = room > 0 ? templates.slice(templateStart, templateStart + room).map(toTemplateView) : [];
  return {
    workflows: [...own, ...fill],
    pagination: paginationMeta(first.total + templates.length, page),
  };
}

export async function updateDraft(deps: D, clientId: string, id: string, input: Partial<DefinitionInput>) {
  if (input.graph) validateGraph(input.graph);
  if (input.graph) await assertGraphReferences(deps.db, clientId, input.graph);
  const row = await deps.db.transaction(async (tx) => {
    if (findTemplate(id)) throw badRequest(WorkflowMessages.templateReadOnly);
    const current = await findClientDefinition(tx, clientId, id, true);
    if (!current) throw notFound(WorkflowMessages.workflowNotFound);
    if (!isEditable(current.status)) throw badRequest(WorkflowMessages.notEditable);
    const updated = await updateDefinition(tx, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.graph
        ? { graph: input.graph as unknown as Record<string, unknown>, triggerType: input.graph.trigger.type }
        : {}),
      updatedAt: deps.clock.now(),
    });
    await recordActivity(tx, {
      ...wfEntry(clientId, 'workflow.updated', updated, deps.clock.now()),
      changes: diffChanges(
        { name: current.name, description: current.description, graph: current.graph },
        { name: updated.name, description: updated.description, graph: updated.graph },
      ),
    });
    return updated;
  });
  return toDefinitionView(deps, row);
}

export async function deleteDefinition(
  deps: Pick<Deps, 'db' | 'clock'>,
  clientId: string,
  id: string,
): Promise<void> {
  await deps.db.transaction(async (tx) => {
    if (findTemplate(id)) throw badRequest(WorkflowMessages.templateReadOnly);
    const current = await findClientDefinition(tx, clientId, id, true);
    if (!current) throw notFound(WorkflowMessages.workflowNotFound);
    // Runs insert under a lock on the definition row too, so none can slip in between.
    if (await definitionHasRuns(tx, id)) throw conflict(WorkflowMessages.hasRuns);
    await deleteDefinitionRow(tx, id);
    await recordActivity(tx, wfEntry(clientId, 'workflow.deleted', current, deps.clock.now()));
  });
}

export async function forkDefinition(deps: D, clientId: string, id: string, input: { name?: string }) {
  const t = findTemplate(id);
  const source = t
    ? { name: t.name, description: t.description, graph: t.graph }
    : await loadDefinition(deps, clientId, id).then((d) => ({
        name: d.name,
        description: d.description,
        graph: d.graph as Graph,
      }));
  const now = deps.clock.now();
  const row = await withActivity(
    deps.db,
    (tx) =>
      insertDefinition(tx, {
        clientId,
        name: input.name ?? source.name,
        description: source.description,
        graph: structuredClone(source.graph) as unknown as Record<string, unknown>,
        status: 'DRAFT',
        triggerType: source.graph.trigger.type,
        forkedFromId: id,
        createdAt: now,
        updatedAt: now,
      }),
    (r) => ({ ...wfEntry(clientId, 'workflow.forked', r, now), metadata: { forked_from_id: id } }),
  );
  return toDefinitionView(deps, row);
}

/**
 * DRAFT -> PUBLISHED. The graph is validated again, unsupported node types are refused (400 naming
 * the node), and a webhook-triggered workflow gets its trigger token and signing secret; the
 * secret is returned here once (`trigger_secret`) and stored encrypted.
 */
export async function publishDefinition(deps: D, auth: ClientAuth, id: string) {
  const current = await loadOwnForWrite(deps, auth.clientId, id);
  if (!canPublish(current.status)) throw badRequest(WorkflowMessages.alreadyPublished);
  const graph = current.graph as Graph;
  validateGraph(graph);
  const unsupported = graph.nodes.find((n) => UNSUPPORTED_NODE_TYPES.includes(n.type));
  if (unsupported) throw badRequest(WorkflowMessages.unsupportedNode(unsupported.id, unsupported.type));
  assertMayUseNodes(graph, auth.permissions);
  const now = deps.clock.now();
  const secret = graph.trigger.type === 'webhook' ? newTriggerSecret() : null;
  // A concurrent publish or edit that moved the definition first loses cleanly (the same 400).
  const row = await deps.db.transaction((tx) =>
    transition(tx, definitionTable, current, 'publish', {
      set: {
        publishedAt: now,
        updatedAt: now,
        ...(secret
          ? {
              triggerToken: `wft_${randomToken(24)}`,
              triggerSecretEnc: encrypt(deps.secrets.encryptionKey, secret),
            }
          : {}),
      },
      lost: 'null',
      activity: (r, { from, to }) =>
        recordActivity(tx, {
          ...wfEntry(auth.clientId, 'workflow.published', r, now),
          changes: {
            status: { from, to },
            ...(secret ? { trigger_secret: { from: null, to: 'set' } } : {}),
          },
        }),
    }),
  );
  if (!row) throw badRequest(WorkflowMessages.alreadyPublished);
  return { ...toDefinitionView(deps, row), trigger_secret: secret };
}

/** Mints a fresh signing secret; the previous one stops working at once. */
export async function rotateTriggerSecret(deps: D, clientId: string, id: string) {
  const current = await loadOwnForWrite(deps, clientId, id);
  if (current.status !== 'PUBLISHED' || !current.triggerToken)
    throw badRequest(WorkflowMessages.noTriggerSecret);
  const secret = newTriggerSecret();
  const row = await withActivity(
    deps.db,
    (tx) =>
      updateDefinition(tx, id, {
        triggerSecretEnc: encrypt(deps.secrets.encryptionKey, secret),
        updatedAt: deps.clock.now(),
      }),
    (r) => ({
      ...wfEntry(clientId, 'workflow.trigger_secret_rotated', r, deps.clock.now()),
      changes: { trigger_secret: { from: 'old', to: 'new' } },
    }),
  );
  return {
    definition_id: row.id,
    trigger_url: triggerUrl(deps, row.triggerToken!),
    trigger_secret: secret,
  };
}

export function triggerSecretOf(deps: Pick<Deps, 'secrets'>, d: DefinitionRow): string | null {
  return d.triggerSecretEnc ? decrypt(deps.secrets.encryptionKey, d.triggerSecretEnc) : null;
}

/** Archive hides the workflow from default lists and stops new runs; existing runs go on. Idempotent. */
export async function setDefinitionArchived(deps: D, clientId: string, id: string, archived: boolean) {
  const current = await loadOwnForWrite(deps, clientId, id);
  if (Boolean(current.archivedAt) === archived) return toDefinitionView(deps, current);
  const now = deps.clock.now();
  const row = await withActivity(
    deps.db,
    (tx) => updateDefinition(tx, id, { archivedAt: archived ? now : null, updatedAt: now }),
    (r) => ({
      ...wfEntry(clientId, archived ? 'workflow.archived' : 'workflow.unarchived', r, now),
      changes: { archived: { from: !archived, to: archived } },
    }),
  );
  return toDefinitionView(deps, row);
}

function wfEntry(clientId: string, action: string, d: { id: string; name: string }, at: Date): ActivityInput {
  return { clientId, action, at, target: { type: 'workflow', id: d.id, label: d.name } };
}
