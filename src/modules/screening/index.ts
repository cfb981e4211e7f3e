/**
 * Wallet screening and wallet ownership, with the provider's signed notifications and the hosted
 * proof page. Emits `screening.ownership_status_changed` (ownership-events.ts).
 */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { ownershipProofEmailJob } from './ownership.jobs';
import { ownershipRoutes } from './ownership.routes';
import { walletProofPageRoutes } from './proof-page.routes';
import { screeningInbound } from './screening.inbound';
import { screeningRoutes } from './screening.routes';
import { runScreeningWorker } from './screening.worker';

export const screeningModule = defineModule({
  name: 'screening',
  api: [screeningRoutes, ownershipRoutes],
  inbound: [screeningInbound],
  pages: [walletProofPageRoutes],
  jobs: [ownershipProofEmailJob],
  workers: (deps) => [
    // Monitored re-screens, ownership expiry, the sandbox provider's due notifications.
    sweepWorker(deps, 'wallet-screening', () => runScreeningWorker(deps)),
  ],
});
