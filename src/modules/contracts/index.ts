/** Contracts and e-signing: templates, flows, requests, the provider's notifications and the signing page. */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { contractJobs } from './contracts.jobs';
import { contractsRoutes } from './contracts.routes';
import { runContractsWorker } from './contracts.worker';
import { esignInbound } from './esign.inbound';
import { contractRequestsRoutes } from './requests.routes';
import { signPageRoutes } from './sign-page.routes';

export const contractsModule = defineModule({
  name: 'contracts',
  api: [contractsRoutes, contractRequestsRoutes],
  inbound: [esignInbound],
  pages: [signPageRoutes],
  jobs: contractJobs,
  workers: (deps) => [
    // Expiry, automatic reminders, the sandbox provider's auto-sign/decline.
    sweepWorker(deps, 'contracts', () => runContractsWorker(deps)),
  ],
});
