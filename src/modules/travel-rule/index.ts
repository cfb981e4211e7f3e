/** Travel rule: transfers, VASP discovery and the network's signed notifications. */
import { defineModule } from '../../platform/module';
import { transferExpiryTimer } from './expiry.service';
import { trpIdentityRootRoutes } from './identity.routes';
import { rescreenUnavailableTransfers } from './sanctions-rescreen.worker';
import { travelRuleInbound } from './travel-rule.inbound';
import { answerInboundJob, applyAnswerJob, counterpartyMessageJob, dispatchJob } from './travel-rule.jobs';
import { followOwnershipRequest } from './travel-rule.listeners';
import { travelRuleRoutes } from './travel-rule.routes';

export const travelRuleModule = defineModule({
  name: 'travel-rule',
  api: [travelRuleRoutes],
  // TRP's identity at the origin's root, where TRISA's client asks for it (outside /api/v1).
  pages: [trpIdentityRootRoutes],
  inbound: [travelRuleInbound],
  jobs: [dispatchJob, answerInboundJob, applyAnswerJob, counterpartyMessageJob],
  // Unanswered transfers expire at their deadline (the sandbox network's answers are timers of the
  // sandbox providers' manifest).
  timers: [transferExpiryTimer],
  subscriptions: [followOwnershipRequest],
  // Inbound transfers received while the sanctions lists could not answer are screened once they do.
  housekeeping: (deps) => [
    { name: 'travel-rule-rescreen', everyMs: 60_000, run: () => rescreenUnavailableTransfers(deps) },
  ],
});
