/** Transaction monitoring: policies, decisions, reviews and the hosted remediation page. */
import { defineModule } from '../../platform/module';
import { followOwnershipOutcome, submitOnVerificationResult } from './monitoring.listeners';
import { remediationPageRoutes } from './monitoring.page';
import { monitoringRoutes } from './monitoring.routes';
import { remediationExpiryTimer } from './reviews.transitions';

export const monitoringModule = defineModule({
  name: 'monitoring',
  api: [monitoringRoutes],
  pages: [remediationPageRoutes],
  subscriptions: [submitOnVerificationResult, followOwnershipOutcome],
  // Remediations past their TTL move to the policy's on_remediation_expiry.
  timers: [remediationExpiryTimer],
});
