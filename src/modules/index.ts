/**
 * Every feature module, in one list. API modules are mounted under /api/v1; page modules
 * (hosted checkout, verification pages, health) at the root.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import type { JobDefinition } from '../platform/jobs/index';
import { sandboxBankRoutes } from '../providers/bank/simulator.routes';
import { activityRoutes } from './activity/activity.routes';
import { adminRoutes } from './admin/admin.routes';
import { billingRoutes } from './billing/billing.routes';
import './billing/billing.listeners';
import { credentialsRoutes } from './auth/credentials.routes';
import { loginRoutes } from './auth/login.routes';
import { meRoutes } from './auth/me.routes';
import { mfaRoutes } from './auth/mfa.routes';
import { passwordRoutes } from './auth/password.routes';
import { registrationRoutes } from './auth/registration.routes';
import { securityRoutes } from './auth/security.routes';
import { sessionRoutes } from './auth/sessions.routes';
import { settingsRoutes } from './auth/settings.routes';
import { teamRoutes } from './auth/team.routes';
import { bulkLinksRoutes } from './bulk-links/bulk.routes';
import { checkoutRoutes } from './checkout/checkout.routes';
import { contractsRoutes } from './contracts/contracts.routes';
import { esignNotificationRoutes } from './contracts/esign-notifications.routes';
import { contractRequestsRoutes } from './contracts/requests.routes';
import { signPageRoutes } from './contracts/sign-page.routes';
import { customersRoutes } from './customers/customers.routes';
import { dashboardRoutes } from './dashboard/dashboard.routes';
import { healthRoutes } from './health/health.routes';
import { kycRoutes } from './kyc/kyc.routes';
import { levelsRoutes } from './kyc/levels.routes';
import { verificationNotificationRoutes } from './kyc/notifications.routes';
import { verifyPageRoutes } from './kyc/verify-page.routes';
import { faviconRoutes } from './site/favicon.routes';
import './monitoring/monitoring.listeners';
import { remediationPageRoutes } from './monitoring/monitoring.page';
import { monitoringRoutes } from './monitoring/monitoring.routes';
import { notificationsRoutes } from './notifications/notifications.routes';
import { opcosRoutes } from './opcos/opcos.routes';
import { bankNotificationRoutes } from './payments/bank-notifications.routes';
import { paymentsRoutes } from './payments/payments.routes';
import { tokenioWebhookRoutes } from './payments/tokenio-hints.routes';
import { projectsRoutes } from './projects/projects.routes';
import { screeningNotificationRoutes } from './screening/notifications.routes';
import { ownershipRoutes } from './screening/ownership.routes';
import { walletProofPageRoutes } from './screening/proof-page.routes';
import { screeningRoutes } from './screening/screening.routes';
import './screening/screening.usage';
import { ticketsRoutes } from './tickets/tickets.routes';
import { travelRuleNotificationRoutes } from './travel-rule/notifications.routes';
import './travel-rule/travel-rule.listeners';
import { travelRuleRoutes } from './travel-rule/travel-rule.routes';
import './schedules/schedules.listeners';
import { sandboxMandateRoutes } from '../providers/bank/sandbox-mandate.routes';
import { schedulesRoutes } from './schedules/schedules.routes';
import { webhookListenRoutes } from './webhooks/listen.routes';
import { webhooksRoutes } from './webhooks/webhooks.routes';
import { workflowTriggerRoutes } from './workflows/triggers.routes';
import { workflowsRoutes } from './workflows/workflows.routes';
import './recurring/recurring.listeners';
import { invoiceEmailJob } from './billing/invoice-email';
import { invoicePaymentLinkJob } from './billing/invoice-payment-link';
import { contractJobs } from './contracts/contracts.jobs';
import { notificationEmailJob } from './notifications/notification-email';
import { registerSubTppJob } from './opcos/opco-network.service';
import { mandatePageRoutes } from './recurring/mandate-page.routes';
import { recurringRoutes } from './recurring/recurring.routes';
import { schedulePayerEmailJob } from './schedules/schedules.emails';
import { ownershipProofEmailJob } from './screening/ownership.jobs';
import { ticketReplyEmailJob } from './tickets/ticket-email';

/** Every job kind the features define (docs/platform.md, "Jobs"); the jobs runner dispatches on these. */
export const jobDefinitions: JobDefinition<never>[] = [
  registerSubTppJob as JobDefinition<never>,
  ...contractJobs,
  ownershipProofEmailJob as JobDefinition<never>,
  invoiceEmailJob as JobDefinition<never>,
  invoicePaymentLinkJob as JobDefinition<never>,
  ticketReplyEmailJob as JobDefinition<never>,
  notificationEmailJob as JobDefinition<never>,
  schedulePayerEmailJob as JobDefinition<never>,
];

export type ModulePlugin = (app: FastifyInstance, opts: { deps: Deps }) => Promise<void>;

export const apiModules: ModulePlugin[] = [
  securityRoutes,
  registrationRoutes,
  loginRoutes,
  sessionRoutes,
  meRoutes,
  mfaRoutes,
  passwordRoutes,
  credentialsRoutes,
  teamRoutes,
  settingsRoutes,
  opcosRoutes,
  projectsRoutes,
  customersRoutes,
  kycRoutes,
  levelsRoutes,
  verificationNotificationRoutes,
  adminRoutes,
  paymentsRoutes,
  bankNotificationRoutes,
  tokenioWebhookRoutes,
  webhooksRoutes,
  webhookListenRoutes,
  workflowsRoutes,
  workflowTriggerRoutes,
  ticketsRoutes,
  billingRoutes,
  bulkLinksRoutes,
  schedulesRoutes,
  monitoringRoutes,
  screeningRoutes,
  ownershipRoutes,
  screeningNotificationRoutes,
  travelRuleRoutes,
  travelRuleNotificationRoutes,
  activityRoutes,
  notificationsRoutes,
  contractsRoutes,
  contractRequestsRoutes,
  esignNotificationRoutes,
  recurringRoutes,
];

export const rootModules: ModulePlugin[] = [
  healthRoutes,
  checkoutRoutes,
  sandboxBankRoutes,
  verifyPageRoutes,
  remediationPageRoutes,
  walletProofPageRoutes,
  signPageRoutes,
  mandatePageRoutes,
  sandboxMandateRoutes,
  dashboardRoutes,
  faviconRoutes,
];
