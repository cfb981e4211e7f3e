/** Contracts and e-signing: templates, flows, requests, the provider's notifications and the signing page. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { contractsRoutes } from './contracts.routes';
import { runContractsWorker } from './contracts.worker';
import { esignNotificationRoutes } from './esign-notifications.routes';
import { contractRequestsRoutes } from './requests.routes';
import { signPageRoutes } from './sign-page.routes';

export const contractsModule = defineModule({
  name: 'contracts',
  api: [contractsRoutes, contractRequestsRoutes, esignNotificationRoutes],
  pages: [signPageRoutes],
  workers: (deps) => [
    // Expiry, automatic reminders, pending envelopes, owed payment links, sandbox auto-sign/decline.
    loopWorker(
      'contracts',
      Math.max(deps.config.workerPollMs, 1000),
      () => runContractsWorker(deps),
      deps.log,
    ),
  ],
});
