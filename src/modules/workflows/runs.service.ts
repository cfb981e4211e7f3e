/** Workflow runs: start (API or signed trigger, idempotent by key), read with steps, list, cancel. */

import { workflowRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { emitEvent } from '../../outbox/emit';
import { verifyWebhookSignature } from '../../outbox/verify-signature';
import { idempotencyKeyOf } from '../../platform/idempotency';
import { machineTable, transition } from '../../platform/machine';
import type { ClientAuth } from '../../plugins/auth';
import { badRequest, conflict, notFound, unauthorized } from '../../shared/errors';
import { requestFingerprint } from '../../shared/fingerprint';
import { M } from '../../shared/messages';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import { canStartRun, type RunStatus, runMachine } from './workflows.machine';
import { WorkflowMessages } from './workflows.messages';
import {
  closeOpenSteps,
  type DefinitionRow,
  findClientDefinition,
  findClientRun,
  findDefinitionByTriggerToken,
  findRunByIdempotencyKey,
  insertRunIfNew,
  listClientRuns,
  type RunRow,
  type StepRow,
  stepsOfRun,
} from './workflows.repo';
import { triggerSecretOf } from './workflows.service';
import { assertMayUseNodes, type Graph, type NodeType, startNodeOf } from './workflows-graph.policy';
import { findTemplate } from './workflows-templates.service';

export const TRIGGER_TOLERANCE_SECONDS = 300;

export function toRunView(r: RunRow) {
  return {
    run_id: r.id,
    workflow_definition_id: r.definitionId,
    status: r.status,
    source: r.source as 'api' | 'webhook',
    input: r.input,
    current_step_id: r.currentStepId,
    error_message: r.errorMessage,
    created_at: r.createdAt.toISOString(),
    started_at: r.startedAt?.toISOString() ?? null,
    finished_at: r.finishedAt?.toISOString() ?? null,
    updated_at: r.updatedAt.toISOString(),
  };
}

export function toStepView(s: StepRow) {
  return {
    step_id: s.stepId,
    node_type: s.nodeType as NodeType,
    status: s.status,
    output: s.output ?? null,
    error: s.error,
    resume_at: s.resumeAt?.toISOString() ?? null,
    started_at: s.startedAt.toISOString(),
    finished_at: s.finishedAt?.toISOString() ?? null,
  };
}

interface StartInput {
  input: Record<string, unknown>;
  idempotencyKey: string | null;
  source: 'api' | 'webhook';
}

/** Creates the run (pending, due now) and emits workflow.run.started in the same transaction. */
async function createRun(
  deps: Deps,
  def: DefinitionRow,
  start: StartInput,
): Promise<{ run: RunRow; created: boolean }> {
  const fingerprint = requestFingerprint(start.input);
  return deps.db.transaction(async (tx) => {
    // Locks the definition against a concurrent delete/archive while the run is inserted.
    const locked = await findClientDefinition(tx, def.clientId, def.id, true);
    if (!locked) throw notFound(WorkflowMessages.workflowNotFound);
    if (!canStartRun(locked.status, Boolean(locked.archivedAt)))
      throw badRequest(locked.archivedAt ? WorkflowMessages.archived : WorkflowMessages.notPublished);
    const now = deps.clock.now();
    const run = await insertRunIfNew(tx, {
      clientId: def.clientId,
      definitionId: def.id,
      status: 'pending',
      source: start.source,
      input: start.input,
      stepOutputs: {},
      currentStepId: startNodeOf(locked.graph as Graph),
      idempotencyKey: start.idempotencyKey,
      inputFingerprint: fingerprint,
      dueAt: now,
      createdAt: now,
      updatedAt: now,
    });
    if (!run) {
      const existing = await findRunByIdempotencyKey(tx, def.clientId, def.id, start.idempotencyKey!);
      if (!existing) throw conflict(M.idempotencyInProgress);
      if (existing.inputFingerprint !== fingerprint) throw conflict(M.idempotencyPayloadMismatch);
      return { run: existing, created: false };
    }
    await emitEvent(tx, {
      clientId: def.clientId,
      type: 'workflow.run.started',
      occurredAt: now,
      dedupKey: `workflow_run:${run.id}:started`,
      data: { run_id: run.id, workflow_definition_id: def.id },
    });
    await recordActivity(tx, {
      clientId: def.clientId,
      action: 'workflow_run.started',
      at: now,
      target: { type: 'workflow_run', id: run.id, label: def.name },
      metadata: { workflow_definition_id: def.id, source: start.source },
    });
    return { run, created: true };
  });
}

const optionalKeyOf = (header: string | string[] | undefined): string | null =>
  idempotencyKeyOf(header, false) ?? null;

export async function startRun(
  deps: Deps,
  auth: ClientAuth,
  definitionId: string,
  input: Record<string, unknown>,
  idempotencyHeader: string | string[] | undefined,
) {
  if (findTemplate(definitionId)) throw badRequest(WorkflowMessages.templateNotRunnable);
  const key = optionalKeyOf(idempotencyHeader);
  const def = await findClientDefinition(deps.db, auth.clientId, definitionId);
  if (!def) throw notFound(WorkflowMessages.workflowNotFound);
  assertMayUseNodes(def.graph as Graph, auth.permissions);
  const { run, created } = await createRun(deps, def, { input, idempotencyKey: key, source: 'api' });
  return { created, run: toRunView(run) };
}

/**
 * POST /workflow-triggers/{token}: unknown token 404; then the signature over the raw body
 * (`X-SVC-Timestamp`, `X-SVC-Signature: sha256=<hex HMAC of "timestamp.rawBody">`, 300 s, constant
 * time) 401; then the body must be a JSON object, and the workflow published and not archived.
 */
export async function triggerRun(
  deps: Deps,
  token: string,
  req: {
    rawBody: string | undefined;
    timestamp: string | string[] | undefined;
    signature: string | string[] | undefined;
    idempotencyKey: string | string[] | undefined;
  },
) {
  const def = await findDefinitionByTriggerToken(deps.db, token);
  if (!def) throw notFound(WorkflowMessages.triggerNotFound);
  const secret = triggerSecretOf(deps, def);
  const ok =
    secret !== null &&
    verifyWebhookSignature({
      secret,
      rawBody: req.rawBody ?? '',
      timestamp: req.timestamp,
      signature: req.signature,
      toleranceSeconds: TRIGGER_TOLERANCE_SECONDS,
      now: deps.clock.now(),
    });
  if (!ok) throw unauthorized(WorkflowMessages.invalidTriggerSignature);
  let input: unknown;
  try {
    input = req.rawBody ? JSON.parse(req.rawBody) : {};
  } catch {
    throw badRequest(WorkflowMessages.invalidTriggerBody);
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw badRequest(WorkflowMessages.invalidTriggerBody);
  const key = optionalKeyOf(req.idempotencyKey);
  const { run, created } = await createRun(deps, def, {
    input: input as Record<string, unknown>,
    idempotencyKey: key,
    source: 'webhook',
  });
  return { run_id: run.id, status: run.status, replayed: !created };
}

export async function getRun(deps: Pick<Deps, 'db'>, clientId: string, runId: string) {
  const run = await findClientRun(deps.db, clientId, runId);
  if (!run) throw notFound(WorkflowMessages.runNotFound);
  const steps = await stepsOfRun(deps.db, run.id);
  return { ...toRunView(run), steps: steps.map(toStepView) };
}

export async function listRuns(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  filter: { definitionId?: string; status?: RunStatus },
) {
  const { rows, total } = await listClientRuns(deps.db, clientId, page, filter);
  return { runs: rows.map(toRunView), pagination: paginationMeta(total, page) };
}

const runTable = machineTable(runMachine, workflowRuns, { conflict: WorkflowMessages.runChangedMeanwhile });

/**
 * Cancels a pending, running or waiting run. A step in flight finishes its call, but the engine's
 * compare-and-set then finds the run canceled and records nothing further.
 */
export async function cancelRun(deps: Pick<Deps, 'db' | 'clock'>, clientId: string, runId: string) {
  const run = await deps.db.transaction(async (tx) => {
    const current = await findClientRun(tx, clientId, runId, true);
    if (!current) throw notFound(WorkflowMessages.runNotFound);
    const now = deps.clock.now();
    // The run row is locked: a finished run is the machine's 400, naming its status.
    return transition(tx, runTable, current, 'cancel', {
      set: { finishedAt: now, updatedAt: now, dueAt: null, lockedUntil: null, leaseToken: null },
      before: () => closeOpenSteps(tx, runId, 'canceled', now),
      activity: (_updated, { from, to }) =>
        recordActivity(tx, {
          clientId,
          action: 'workflow_run.canceled',
          at: now,
          target: { type: 'workflow_run', id: runId, label: null },
          changes: { status: { from, to } },
        }),
    });
  });
  return toRunView(run);
}
