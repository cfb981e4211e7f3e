/** Workflows: definitions, triggers and the engine that runs them. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { workflowTriggerRoutes } from './triggers.routes';
import { processDueWorkflowRuns } from './workflows.engine';
import { workflowsRoutes } from './workflows.routes';

export const workflowsModule = defineModule({
  name: 'workflows',
  api: [workflowsRoutes, workflowTriggerRoutes],
  workers: (deps) => [
    // Claims due runs (FOR UPDATE SKIP LOCKED + lease) and executes their steps.
    loopWorker('workflow-engine', deps.config.workerPollMs, () => processDueWorkflowRuns(deps, 10), deps.log),
  ],
});
