/** Travel rule: transfers, VASP discovery and the network's signed notifications. */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { travelRuleInbound } from './travel-rule.inbound';
import { answerInboundJob, applyAnswerJob, counterpartyMessageJob, dispatchJob } from './travel-rule.jobs';
import { followOwnershipRequest } from './travel-rule.listeners';
import { travelRuleRoutes } from './travel-rule.routes';
import { runTravelRuleWorker } from './travel-rule.worker';

export const travelRuleModule = defineModule({
  name: 'travel-rule',
  api: [travelRuleRoutes],
  inbound: [travelRuleInbound],
  jobs: [dispatchJob, answerInboundJob, applyAnswerJob, counterpartyMessageJob],
  subscriptions: [followOwnershipRequest],
  workers: (deps) => [
    // Unanswered transfers expire; the sandbox network's due counterparty answers.
    sweepWorker(deps, 'travel-rule', () => runTravelRuleWorker(deps)),
  ],
});
