/** Workflows: definitions, triggers and the engine that runs them. */
import { defineModule } from '../../platform/module';
import { INTERACTIVE_IDLE_MAX_MS, sweepWorker } from '../../workers/loop';
import { wakeRunsOnContractRequests } from './contract-node.service';
import { workflowTriggerRoutes } from './triggers.routes';
import { workflowsRoutes } from './workflows.routes';
import { processDueWorkflowRuns } from './workflows-engine.service';

export const workflowsModule = defineModule({
  name: 'workflows',
  api: [workflowsRoutes, workflowTriggerRoutes],
  // A contract request a contract node waits on moved: the run is due now.
  subscriptions: [wakeRunsOnContractRequests],
  workers: (deps) => [
    // Claims due runs (FOR UPDATE SKIP LOCKED + lease) and executes their steps.
    sweepWorker(
      deps,
      'workflow-engine',
      () => processDueWorkflowRuns(deps, 10),
      deps.config.workerPollMs,
      INTERACTIVE_IDLE_MAX_MS,
    ),
  ],
});
