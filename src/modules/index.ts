/**
 * Every module of the service, as the list of their manifests (docs/platform.md, "Module
 * manifests"). The app's routes and pages, the workers, the jobs registry, the event bus's
 * subscriptions and the start-up tasks are all derived from this list. The order is the
 * registration order of routes and pages, of workers, and of the listeners of one event.
 */
import type { Deps } from '../deps';
import { createEventBus, type EventBus } from '../platform/events';
import { type JobDefinition, type TimerDefinition, timersBackfillJob } from '../platform/jobs/index';
import type { AppSubscription, ModuleManifest } from '../platform/module';
import { sanctionsListsModule } from '../providers/sanctions/sanctions.module';
import { sandboxProvidersModule } from '../providers/sandbox.module';
import { activityModule } from './activity/index';
import { adminModule } from './admin/index';
import { authModule } from './auth/index';
import { billingModule } from './billing/index';
import { bulkLinksModule } from './bulk-links/index';
import { checkoutModule } from './checkout/index';
import { contractsModule } from './contracts/index';
import { customersModule } from './customers/index';
import { dashboardModule } from './dashboard/index';
import { healthModule } from './health/index';
import { kycModule } from './kyc/index';
import { monitoringModule } from './monitoring/index';
import { notificationsModule } from './notifications/index';
import { opcosModule } from './opcos/index';
import { paymentsModule } from './payments/index';
import { projectsModule } from './projects/index';
import { recurringModule } from './recurring/index';
import { refundsModule } from './refunds/index';
import { schedulesModule } from './schedules/index';
import { screeningModule } from './screening/index';
import { siteModule } from './site/index';
import { ticketsModule } from './tickets/index';
import { travelRuleModule } from './travel-rule/index';
import { webhooksModule } from './webhooks/index';
import { workflowsModule } from './workflows/index';

export const modules: readonly ModuleManifest[] = [
  healthModule,
  checkoutModule,
  sandboxProvidersModule,
  sanctionsListsModule,
  authModule,
  opcosModule,
  projectsModule,
  customersModule,
  kycModule,
  adminModule,
  paymentsModule,
  refundsModule,
  webhooksModule,
  workflowsModule,
  ticketsModule,
  billingModule,
  bulkLinksModule,
  schedulesModule,
  monitoringModule,
  screeningModule,
  travelRuleModule,
  activityModule,
  notificationsModule,
  contractsModule,
  recurringModule,
  dashboardModule,
  siteModule,
];

/** Every timer kind the modules define (docs/platform.md, "Timers"). */
export const timerDefinitions: readonly TimerDefinition<never>[] = modules.flatMap((m) => m.timers ?? []);

/**
 * Every job kind the modules define, their timers and the timers' backfill (docs/platform.md,
 * "Jobs"); the jobs runner dispatches on these.
 */
export const jobDefinitions: readonly JobDefinition<never>[] = [
  ...modules.flatMap((m) => m.jobs ?? []),
  ...timerDefinitions,
  timersBackfillJob(timerDefinitions),
];

/** What staff read for a job kind: a timer's label, else the kind itself. */
export function jobKindLabel(kind: string): string {
  return timerDefinitions.find((t) => t.kind === kind)?.label ?? kind;
}

/**
 * The event bus of one app, with every module's subscriptions (then `extra`, a test's own);
 * `deps` gives that app's deps.
 */
export function createAppEvents(deps: () => Deps, extra: readonly AppSubscription[] = []): EventBus {
  return createEventBus([...modules.flatMap((m) => m.subscriptions ?? []), ...extra], deps);
}
