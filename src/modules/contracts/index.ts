/** Contracts and e-signing: templates, flows, requests, the provider's notifications and the signing page. */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { contractJobs } from './contracts.jobs';
import { contractsRoutes } from './contracts.routes';
import { contractExpiryTimer, contractReminderTimer, runContractsWorker } from './contracts.worker';
import { esignInbound } from './esign.inbound';
import { contractRequestsRoutes } from './requests/requests.routes';
import { signPageRoutes } from './signing-page/sign-page.routes';

export const contractsModule = defineModule({
  name: 'contracts',
  api: [contractsRoutes, contractRequestsRoutes],
  inbound: [esignInbound],
  pages: [signPageRoutes],
  jobs: contractJobs,
  // A sent request's expiry and its automatic reminders.
  timers: [contractExpiryTimer, contractReminderTimer],
  workers: (deps) => [
    // The sandbox provider's auto-sign/decline (and, for the tests' passes, the due contract timers,
    // which the jobs runner runs anyway).
    sweepWorker(deps, 'contracts', () => runContractsWorker(deps)),
  ],
});
