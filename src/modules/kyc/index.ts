/**
 * KYC and KYB: verification links, levels, the provider's signed notifications and the hosted
 * verification page. Emits `kyc.verification_result` (declared in notifications.service.ts).
 */
import { defineModule } from '../../platform/module';
import { sweepWorker } from '../../workers/loop';
import { kycRoutes } from './kyc.routes';
import { levelsRoutes } from './levels.routes';
import { linkExpiryTimer } from './link-expiry.service';
import { verificationRereadJob } from './notifications.service';
import { recheckApprovedVerifications, reconcileVerifications } from './reconcile.service';
import { verificationInbound } from './verification.inbound';
import { verifyPageRoutes } from './verify-page.routes';

export const kycModule = defineModule({
  name: 'kyc',
  api: [kycRoutes, levelsRoutes],
  inbound: [verificationInbound],
  pages: [verifyPageRoutes],
  jobs: [verificationRereadJob],
  // Unused verification links past expires_at expire; a subject left with nothing under way falls back from pending.
  timers: [linkExpiryTimer],
  workers: (deps) => [
    // Verification results a provider never notified are re-read after a bound, and approved
    // subjects' latest links once per re-check cadence (Sumsub only).
    ...(deps.providers.verification.reconcile
      ? [
          sweepWorker(
            deps,
            'verification-reconciliation',
            async () => (await reconcileVerifications(deps)) + (await recheckApprovedVerifications(deps)),
            Math.max(deps.config.workerPollMs, 5000),
          ),
        ]
      : []),
  ],
});
