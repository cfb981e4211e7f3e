/**
 * The simulated providers' own pages on sandbox deployments: the sandbox bank's online banking (a
 * payment's authorization page, a VRP mandate's page). They belong to the simulator, not to a feature
 * (the checkout and recurring payments reach them only through the bank port's URLs), and each plugin
 * registers nothing unless the bank provider is the sandbox bank.
 */
import { defineModule } from '../platform/module';
import { sandboxMandateRoutes } from './bank/sandbox-mandate.routes';
import { sandboxBankRoutes } from './bank/simulator.routes';

export const sandboxProvidersModule = defineModule({
  name: 'sandbox-providers',
  pages: [sandboxBankRoutes, sandboxMandateRoutes],
});
