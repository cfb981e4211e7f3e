/**
 * The handlers of the sandbox simulators' delayed notifications (sandbox-deliveries.ts), listed in
 * the sandbox providers' manifest. A delivery whose simulator is no longer the configured provider
 * is dropped; a refused post throws and is retried with the jobs' backoff.
 *
 * No backfill: the previous release already scheduled these notifications as jobs (its own backfill
 * gave the rows of the release before it a job), so no row of the old queue tables can still be
 * due. A job that backfill wrote (`legacy` in its payload) and that is still pending is sent as any
 * other: its row is no longer claimed first, since no sweep of those tables runs any more.
 */
import type { Deps } from '../deps';
import { defineTimer, runDueTimers } from '../platform/jobs/index';
import {
  SANDBOX_SCREENING_DELIVERY,
  SANDBOX_TRAVEL_RULE_DELIVERY,
  type SandboxDelivery,
} from './sandbox-deliveries';

export const sandboxScreeningDeliveryTimer = defineTimer<SandboxDelivery>({
  ...SANDBOX_SCREENING_DELIVERY,
  label: 'Sandbox screening notification',
  async fire(deps, p) {
    const sandbox = deps.providers.screening.sandbox;
    if (!sandbox) return false;
    await sandbox.deliverScheduled(p.body);
    return true;
  },
});

export const sandboxTravelRuleDeliveryTimer = defineTimer<SandboxDelivery>({
  ...SANDBOX_TRAVEL_RULE_DELIVERY,
  label: 'Sandbox travel-rule answer',
  async fire(deps, p) {
    const sandbox = deps.providers.travelRule.sandbox;
    if (!sandbox) return false;
    await sandbox.deliverScheduled(p.body);
    return true;
  },
});

/** Runs the due screening notifications now (the wallet-screening pass, for tests); returns how many were sent. */
export const deliverDueSandboxScreening = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxScreeningDeliveryTimer]);

/** Runs the due travel-rule answers now (the travel-rule pass, for tests); returns how many were sent. */
export const deliverDueSandboxTravelRule = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxTravelRuleDeliveryTimer]);
