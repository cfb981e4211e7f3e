/** Travel rule: transfers, VASP discovery and the network's signed notifications. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { travelRuleNotificationRoutes } from './notifications.routes';
import { followOwnershipRequest } from './travel-rule.listeners';
import { travelRuleRoutes } from './travel-rule.routes';
import { runTravelRuleWorker } from './travel-rule.worker';

export const travelRuleModule = defineModule({
  name: 'travel-rule',
  api: [travelRuleRoutes, travelRuleNotificationRoutes],
  subscriptions: [followOwnershipRequest],
  workers: (deps) => [
    // Unanswered transfers expire; the sandbox network's due counterparty answers.
    loopWorker(
      'travel-rule',
      Math.max(deps.config.workerPollMs, 1000),
      () => runTravelRuleWorker(deps),
      deps.log,
    ),
  ],
});
