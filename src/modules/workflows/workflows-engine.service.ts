/**
 * The run engine. A worker claims due runs (FOR UPDATE SKIP LOCKED + lease, so several nodes run
 * side by side and a crashed node's runs are picked up when its lease lapses) and executes their
 * steps one by one:
 *
 *   1. the step is recorded as `running` (and the lease extended) before the node calls out;
 *   2. the node runs outside any transaction;
 *   3. its output, the run's context and the next step are written in one transaction together
 *      with `workflow.step.completed` (and `workflow.run.completed` at the end), as a
 *      compare-and-set on the lease token: a canceled run or a lost lease records nothing.
 *
 * A failing step fails the run (`workflow.run.failed` with error_message). A `wait` step parks the
 * run (status waiting, due_at = resume time) and releases the lease. A step found `running` after
 * a crash is executed again only when its kind is idempotent by run + step (see RETRY_SAFE).
 */

import { eq } from 'drizzle-orm';
import { workflowRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { emitEvent } from '../../outbox/emit';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { runContractStep } from './contract-node.service';
import { isTerminalRun } from './workflows.machine';
import {
  claimDueRuns,
  findDefinition,
  findStep,
  insertStep,
  type RunRow,
  type StepRow,
  updateLeasedRun,
  updateStep,
} from './workflows.repo';
import { type Graph, type GraphNode, resolveTemplates } from './workflows-graph.policy';
import { executeNode, RETRY_SAFE, StepError, type StepResult } from './workflows-nodes.service';

export const RUN_LEASE_MS = 5 * 60_000;
/** Steps executed per claim before the run goes back to the queue (fairness between runs). */
const MAX_STEPS_PER_CLAIM = 50;

class LeaseLost extends Error {}

/** One worker tick: claims up to `limit` due runs and advances each. Returns how many were claimed. */
export async function processDueWorkflowRuns(deps: Deps, limit = 10): Promise<number> {
  const token = newId();
  const ids = await claimDueRuns(deps.db, { now: deps.clock.now(), limit, leaseMs: RUN_LEASE_MS, token });
  for (const id of ids) {
    try {
      await advanceRun(deps, id, token);
    } catch (err) {
      if (!(err instanceof LeaseLost)) deps.log.error({ err, runId: id }, 'workflow run advance failed');
    }
  }
  return ids.length;
}

async function loadRun(deps: Deps, runId: string): Promise<RunRow | undefined> {
  const [row] = await deps.db.select().from(workflowRuns).where(eq(workflowRuns.id, runId));
  return row;
}

/** Runs steps of one claimed run until it waits, ends, or the per-claim budget is used. */
export async function advanceRun(deps: Deps, runId: string, token: string): Promise<void> {
  for (let i = 0; i < MAX_STEPS_PER_CLAIM; i++) {
    const run = await loadRun(deps, runId);
    if (!run || run.leaseToken !== token || isTerminalRun(run.status)) return;
    const def = await findDefinition(deps.db, run.definitionId);
    const graph = def?.graph as Graph | undefined;
    const now = deps.clock.now();
    if (run.status !== 'running') {
      const moved = await updateLeasedRun(deps.db, run.id, token, {
        status: 'running',
        startedAt: run.startedAt ?? now,
        updatedAt: now,
      });
      if (!moved) return;
    }
    if (run.currentStepId === null) {
      await completeRun(deps, run, token);
      return;
    }
    const node = graph?.nodes.find((n) => n.id === run.currentStepId);
    if (!node) {
      await failRun(deps, run, token, null, `Step '${run.currentStepId}' is not part of the workflow graph`);
      return;
    }
    const existing = await findStep(deps.db, run.id, node.id);
    const outcome =
      node.type === 'wait'
        ? await runWait(deps, run, token, node, existing)
        : node.type === 'contract'
          ? await runContract(deps, run, token, node, existing)
          : await runStep(deps, run, token, node, existing);
    if (outcome === 'stop') return;
  }
  // Budget used: release the lease so another tick (or node) continues it.
  await updateLeasedRun(deps.db, runId, token, {
    lockedUntil: null,
    leaseToken: null,
    dueAt: deps.clock.now(),
  });
}

type Outcome = 'continue' | 'stop';

async function runWait(
  deps: Deps,
  run: RunRow,
  token: string,
  node: GraphNode,
  existing: StepRow | undefined,
): Promise<Outcome> {
  const now = deps.clock.now();
  if (!existing) {
    const seconds = Number((node.config as { seconds: number }).seconds);
    const resumeAt = addSeconds(now, seconds);
    await deps.db.transaction(async (tx) => {
      const parked = await updateLeasedRun(tx, run.id, token, {
        status: 'waiting',
        dueAt: resumeAt,
        lockedUntil: null,
        leaseToken: null,
        updatedAt: now,
      });
      if (!parked) throw new LeaseLost();
      await insertStep(tx, {
        runId: run.id,
        clientId: run.clientId,
        stepId: node.id,
        nodeType: node.type,
        status: 'waiting',
        resumeAt,
        startedAt: now,
      });
    });
    return 'stop';
  }
  if (existing.status === 'waiting' && existing.resumeAt && now < existing.resumeAt) {
    await updateLeasedRun(deps.db, run.id, token, {
      status: 'waiting',
      dueAt: existing.resumeAt,
      lockedUntil: null,
      leaseToken: null,
      updatedAt: now,
    });
    return 'stop';
  }
  const output = {
    waited_seconds: Math.round((now.getTime() - existing.startedAt.getTime()) / 1000),
    resumed_at: now.toISOString(),
  };
  await finishStep(deps, run, token, node, existing.id, { output });
  return 'continue';
}

async function runStep(
  deps: Deps,
  run: RunRow,
  token: string,
  node: GraphNode,
  existing: StepRow | undefined,
): Promise<Outcome> {
  if (existing?.status === 'completed') {
    await finishStep(deps, run, token, node, existing.id, { output: existing.output ?? {} }, existing);
    return 'continue';
  }
  if (existing && !RETRY_SAFE.has(node.type)) {
    await failRun(
      deps,
      run,
      token,
      existing.id,
      `Step '${node.id}' (${node.type}) was interrupted before its result was recorded; ` +
        'it is not retried automatically so that its side effect cannot happen twice',
    );
    return 'stop';
  }
  const now = deps.clock.now();
  let stepRowId = existing?.id;
  if (!stepRowId) {
    stepRowId = await deps.db.transaction(async (tx) => {
      const held = await updateLeasedRun(tx, run.id, token, {
        lockedUntil: new Date(now.getTime() + RUN_LEASE_MS),
        updatedAt: now,
      });
      if (!held) throw new LeaseLost();
      const step = await insertStep(tx, {
        runId: run.id,
        clientId: run.clientId,
        stepId: node.id,
        nodeType: node.type,
        status: 'running',
        startedAt: now,
      });
      return step.id;
    });
  }
  const config = resolveTemplates(node.config ?? {}, {
    input: run.input,
    steps: run.stepOutputs,
  }) as Record<string, unknown>;
  let result: StepResult;
  try {
    result = await executeNode(node, config, {
      deps,
      clientId: run.clientId,
      runId: run.id,
      stepId: node.id,
    });
  } catch (err) {
    await failRun(
      deps,
      run,
      token,
      stepRowId,
      `Step '${node.id}' (${node.type}) failed: ${reasonOf(deps, err, run.id)}`,
    );
    return 'stop';
  }
  await finishStep(deps, run, token, node, stepRowId, result);
  return 'continue';
}

function runContract(deps: Deps, run: RunRow, token: string, node: GraphNode, existing: StepRow | undefined) {
  if (existing?.status === 'completed')
    return finishStep(deps, run, token, node, existing.id, { output: existing.output ?? {} }, existing).then(
      () => 'continue' as const,
    );
  const config = resolveTemplates(node.config ?? {}, { input: run.input, steps: run.stepOutputs }) as Record<
    string,
    unknown
  >;
  return runContractStep(deps, run, token, node, existing, config, {
    finish: (id, output) => finishStep(deps, run, token, node, id, { output }),
    fail: (id, message) => failRun(deps, run, token, id, message),
    leaseLost: () => new LeaseLost(),
  });
}

function reasonOf(deps: Deps, err: unknown, runId: string): string {
  if (err instanceof StepError) return err.message;
  if (err instanceof AppError) return err.detail;
  deps.log.error({ err, runId }, 'workflow step failed unexpectedly');
  return 'internal error';
}

function nextOf(node: GraphNode, result: StepResult): string | null {
  if (node.type === 'condition') return (result.branch ? node[result.branch] : null) ?? null;
  return node.next ?? null;
}

/** Records the step's output, advances the run (completing it after the last step) and emits, in one transaction. */
async function finishStep(
  deps: Deps,
  run: RunRow,
  token: string,
  node: GraphNode,
  stepRowId: string,
  result: StepResult,
  alreadyRecorded?: StepRow,
) {
  const now = deps.clock.now();
  const next = nextOf(node, result);
  await deps.db.transaction(async (tx) => {
    const updated = await updateLeasedRun(tx, run.id, token, {
      stepOutputs: { ...run.stepOutputs, [node.id]: result.output },
      currentStepId: next,
      updatedAt: now,
      ...(next === null
        ? { status: 'completed', finishedAt: now, dueAt: null, lockedUntil: null, leaseToken: null }
        : { lockedUntil: new Date(now.getTime() + RUN_LEASE_MS) }),
    });
    if (!updated) throw new LeaseLost();
    if (!alreadyRecorded)
      await updateStep(tx, stepRowId, { status: 'completed', output: result.output, finishedAt: now });
    await emitEvent(tx, {
      clientId: run.clientId,
      type: 'workflow.step.completed',
      occurredAt: now,
      dedupKey: `workflow_run:${run.id}:step:${node.id}:completed`,
      data: { run_id: run.id, step_id: node.id, node_type: node.type, output: result.output },
    });
    if (next === null) await emitCompleted(tx, run, now);
  });
}

async function emitCompleted(tx: Parameters<typeof emitEvent>[0], run: RunRow, now: Date) {
  await emitEvent(tx, {
    clientId: run.clientId,
    type: 'workflow.run.completed',
    occurredAt: now,
    dedupKey: `workflow_run:${run.id}:completed`,
    data: { run_id: run.id, workflow_definition_id: run.definitionId },
  });
}

async function completeRun(deps: Deps, run: RunRow, token: string) {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const updated = await updateLeasedRun(tx, run.id, token, {
      status: 'completed',
      finishedAt: now,
      updatedAt: now,
      dueAt: null,
      lockedUntil: null,
      leaseToken: null,
    });
    if (!updated) throw new LeaseLost();
    await emitCompleted(tx, run, now);
  });
}

async function failRun(deps: Deps, run: RunRow, token: string, stepRowId: string | null, message: string) {
  const now = deps.clock.now();
  const errorMessage = message.slice(0, 1000);
  await deps.db.transaction(async (tx) => {
    const updated = await updateLeasedRun(tx, run.id, token, {
      status: 'failed',
      errorMessage,
      finishedAt: now,
      updatedAt: now,
      dueAt: null,
      lockedUntil: null,
      leaseToken: null,
    });
    if (!updated) throw new LeaseLost();
    if (stepRowId)
      await updateStep(tx, stepRowId, { status: 'failed', error: errorMessage, finishedAt: now });
    await emitEvent(tx, {
      clientId: run.clientId,
      type: 'workflow.run.failed',
      occurredAt: now,
      dedupKey: `workflow_run:${run.id}:failed`,
      data: { run_id: run.id, workflow_definition_id: run.definitionId, error_message: errorMessage },
    });
  });
}
