/** Transaction monitoring: policies, decisions, reviews and the hosted remediation page. */
import { defineModule } from '../../platform/module';
import { periodicWorker } from '../../workers/loop';
import { followOwnershipOutcome, submitOnVerificationResult } from './monitoring.listeners';
import { remediationPageRoutes } from './monitoring.page';
import { expireDueRemediations } from './monitoring.reviews';
import { monitoringRoutes } from './monitoring.routes';

export const monitoringModule = defineModule({
  name: 'monitoring',
  api: [monitoringRoutes],
  pages: [remediationPageRoutes],
  subscriptions: [submitOnVerificationResult, followOwnershipOutcome],
  workers: (deps) => [
    // Remediations past their TTL move to the policy's on_remediation_expiry.
    periodicWorker(deps, 'monitoring-remediation-expiry', 60_000, () => expireDueRemediations(deps, 100)),
  ],
});
