/**
 * Wallet screening and wallet ownership, with the provider's signed notifications and the hosted
 * proof page. Emits `screening.ownership_status_changed` (ownership-events.service.ts).
 */
import { defineModule } from '../../platform/module';
import { ownershipProofEmailJob } from './ownership.jobs';
import { ownershipRoutes } from './ownership.routes';
import { ownershipExpiryTimer } from './ownership.service';
import { walletProofPageRoutes } from './proof-page.routes';
import { screeningInbound } from './screening.inbound';
import { screeningRoutes } from './screening.routes';
import { screeningRetryTimer, walletRescreenTimer } from './screening.service';

export const screeningModule = defineModule({
  name: 'screening',
  api: [screeningRoutes, ownershipRoutes],
  inbound: [screeningInbound],
  pages: [walletProofPageRoutes],
  jobs: [ownershipProofEmailJob],
  // Ownership requests past expires_at expire; a satoshi test past its deposit window fails. A
  // pending screening at a polled provider (one without notifications) is asked again. A monitored
  // wallet is re-screened every SVC_SCREENING_RESCREEN_HOURS. No loop: the jobs runner runs them.
  timers: [ownershipExpiryTimer, screeningRetryTimer, walletRescreenTimer],
});
