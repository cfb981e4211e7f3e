/**
 * The simulated providers' own pages on sandbox deployments: the sandbox bank's online banking (a
 * payment's authorization page, a VRP mandate's page). They belong to the simulator, not to a feature
 * (the checkout and recurring payments reach them only through the bank port's URLs), and each plugin
 * registers nothing unless the bank provider is the sandbox bank. Also the screening and travel-rule
 * simulators' delayed notifications and the e-signing simulator's delayed actions (timers; a no-op
 * unless that simulator is the provider).
 */
import { defineModule } from '../platform/module';
import { sweepWorker } from '../workers/loop';
import { sandboxMandateRoutes } from './bank/sandbox-mandate.routes';
import { SandboxBank } from './bank/simulator';
import { sandboxBankRoutes } from './bank/simulator.routes';
import {
  sandboxEsignActionTimer,
  sandboxScreeningDeliveryTimer,
  sandboxTravelRuleDeliveryTimer,
} from './sandbox-delivery.timers';

export const sandboxProvidersModule = defineModule({
  name: 'sandbox-providers',
  pages: [sandboxBankRoutes, sandboxMandateRoutes],
  // The screening and travel-rule simulators' delayed notifications, the e-signing simulator's
  // `+autosign` / `+autodecline` actions (sandbox-deliveries.ts).
  timers: [sandboxScreeningDeliveryTimer, sandboxTravelRuleDeliveryTimer, sandboxEsignActionTimer],
  // The sandbox bank's refunds settle after SVC_SANDBOX_REFUND_SETTLE_SECONDS (signed notifications).
  workers: (deps) => {
    const bank = deps.providers.bank;
    return bank instanceof SandboxBank
      ? [sweepWorker(deps, 'sandbox-bank-refunds', () => bank.refunds.settleDue())]
      : [];
  },
});
