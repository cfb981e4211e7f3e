/**
 * The workflow `contract` node (docs/guides/contracts.md): sends through POST /contracts/send's use
 * case with the idempotency key `workflow:<run_id>:<step_id>` (so a crash re-runs it without a
 * second request), records the request on the step and parks the run (`waiting`) until the request
 * is terminal (or sent, with `wait_for: "sent"`). The state lives in the database: a restarted
 * service picks the run up again; a terminal request wakes its runs at once, a poll catches the rest.
 */
import { and, eq, sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { workflowRunSteps, workflowRuns } from '../../db/schema/index';
import type { Deps } from '../../deps';
import { on } from '../../platform/module';
import { addSeconds } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { SendBody, type SendInput } from '../contracts/contracts.schemas';
import { isTerminalRequest } from '../contracts/requests/requests.machine';
import { getRequest } from '../contracts/requests/requests.service';
import { sendContract } from '../contracts/requests/send.service';
import { insertStep, type RunRow, type StepRow, updateLeasedRun, updateStep } from './workflows.repo';
import type { GraphNode } from './workflows-graph.policy';

/** How often a waiting contract step looks again when no wake-up came (e.g. after a restart). */
export const CONTRACT_POLL_SECONDS = 300;

export interface ContractNodeOps {
  finish(stepRowId: string, output: Record<string, unknown>): Promise<void>;
  fail(stepRowId: string | null, message: string): Promise<void>;
  leaseLost(): Error;
}

type ReqView = Awaited<ReturnType<typeof getRequest>>;

function outputOf(r: ReqView) {
  return {
    contract_request_id: r.contract_request_id,
    status: r.status,
    completed_at: r.completed_at,
    transaction_id: r.payment?.transaction_id ?? null,
    checkout_url: r.payment?.checkout_url ?? null,
    signing_urls: Object.fromEntries(r.participants.map((p) => [p.role, p.signing_url])),
  };
}

function sendInputOf(config: Record<string, unknown>): SendInput {
  const { wait_for: _w, ...given } = config;
  const rest = Value.Default(SendBody, structuredClone(given)) as Record<string, unknown>;
  if (!Value.Check(SendBody, rest)) {
    const first = [...Value.Errors(SendBody, rest)][0];
    throw new AppError(422, `config${first?.instancePath ?? ''}: ${first?.message ?? 'invalid'}`);
  }
  if ('document' in rest) throw new AppError(422, 'config: use template_id or flow_id');
  return rest as SendInput;
}

export async function runContractStep(
  deps: Deps,
  run: RunRow,
  token: string,
  node: GraphNode,
  existing: StepRow | undefined,
  config: Record<string, unknown>,
  ops: ContractNodeOps,
): Promise<'continue' | 'stop'> {
  const now = deps.clock.now();
  const waitFor = config.wait_for === 'sent' ? 'sent' : 'completion';
  let stepRowId = existing?.id ?? null;
  let requestId = (existing?.output as { contract_request_id?: string } | null)?.contract_request_id ?? null;
  if (!stepRowId) {
    stepRowId = await deps.db.transaction(async (tx) => {
      const held = await updateLeasedRun(tx, run.id, token, { updatedAt: now });
      if (!held) throw ops.leaseLost();
      return (
        await insertStep(tx, {
          runId: run.id,
          clientId: run.clientId,
          stepId: node.id,
          nodeType: node.type,
          status: 'running',
          startedAt: now,
        })
      ).id;
    });
  }
  let view: ReqView;
  try {
    if (!requestId) {
      const auth = {
        clientId: run.clientId,
        role: 'owner' as const,
        permissions: new Set<never>(),
        actorType: 'client_api' as const,
        accountId: null,
        credentialId: null,
        sessionId: null,
        tokenId: `workflow-run:${run.id}`,
        tokenExpiresAt: now,
        tokenType: 'client_api_access' as const,
      };
      const res = await sendContract(deps, auth, `workflow:${run.id}:${node.id}`, sendInputOf(config));
      requestId = (res.body as { contract_request_id: string }).contract_request_id;
    }
    view = await getRequest(deps, run.clientId, requestId);
  } catch (err) {
    const msg = err instanceof AppError ? err.detail : 'internal error';
    if (!(err instanceof AppError))
      deps.log.error({ err, runId: run.id }, 'contract step failed unexpectedly');
    await ops.fail(stepRowId, `Step '${node.id}' (contract) failed: ${msg}`);
    return 'stop';
  }
  const status = view.status;
  const output = outputOf(view);
  if (status === 'completed' || (waitFor === 'sent' && !isTerminalRequest(status) && status !== 'pending')) {
    await ops.finish(stepRowId, output);
    return 'continue';
  }
  if (isTerminalRequest(status)) {
    await updateStep(deps.db, stepRowId, { output });
    await ops.fail(stepRowId, `Step '${node.id}' (contract) failed: contract request ${status}`);
    return 'stop';
  }
  // Not there yet: park the run; the request's terminal change (or the poll) wakes it.
  await deps.db.transaction(async (tx) => {
    await updateStep(tx, stepRowId!, {
      status: 'waiting',
      output,
      resumeAt: addSeconds(now, CONTRACT_POLL_SECONDS),
    });
    const parked = await updateLeasedRun(tx, run.id, token, {
      status: 'waiting',
      dueAt: addSeconds(now, CONTRACT_POLL_SECONDS),
      lockedUntil: null,
      leaseToken: null,
      updatedAt: now,
    });
    if (!parked) throw ops.leaseLost();
  });
  return 'stop';
}

/** Requests moved (sent or terminal): the runs waiting on them are due now (in the emitter's transaction). */
export const wakeRunsOnContractRequests = on(
  'contracts.requests_moved',
  async ({ requestIds }, { tx, deps }) => {
    const now = deps.clock.now();
    for (const requestId of requestIds)
      await tx
        .update(workflowRuns)
        .set({ dueAt: now })
        .where(
          and(
            eq(workflowRuns.status, 'waiting'),
            sql`exists (select 1 from ${workflowRunSteps} s where s.run_id = ${workflowRuns.id} and s.node_type = 'contract'
                      and s.status = 'waiting' and s.output->>'contract_request_id' = ${requestId})`,
          ),
        );
  },
);
