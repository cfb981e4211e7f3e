/** Contracts and e-signing: templates, flows, requests, the provider's notifications and the signing page. */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { contractJobs } from './contracts.jobs';
import { contractsRoutes } from './contracts.routes';
import { esignInbound } from './esign.inbound';
import { reconcileHostedEnvelopes } from './esign-reconciliation.worker';
import { contractExpiryTimer, contractReminderTimer } from './requests/requests.jobs';
import { contractRequestsRoutes } from './requests/requests.routes';
import { signPageRoutes } from './signing-page/sign-page.routes';

export const contractsModule = defineModule({
  name: 'contracts',
  api: [contractsRoutes, contractRequestsRoutes],
  inbound: [esignInbound],
  pages: [signPageRoutes],
  jobs: contractJobs,
  // A sent request's expiry and its automatic reminders (the sandbox provider's auto-sign/decline
  // are timers too, listed by the sandbox providers' manifest).
  timers: [contractExpiryTimer, contractReminderTimer],
  workers: (deps) => [
    // Live envelopes a provider never notified about are read again after its bound (Documenso:
    // the port's reconcile part; webhooks can be lost).
    ...(deps.providers.esign.reconcile
      ? [
          sweepWorker(
            deps,
            'esign-reconciliation',
            () => reconcileHostedEnvelopes(deps),
            Math.max(deps.config.workerPollMs, 5000),
          ),
        ]
      : []),
  ],
});
