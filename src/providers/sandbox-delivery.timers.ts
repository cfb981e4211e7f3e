/**
 * The handlers of the sandbox simulators' delayed notifications (sandbox-deliveries.ts), listed in
 * the sandbox providers' manifest. A delivery whose simulator is no longer the configured provider
 * is dropped; a refused post throws and is retried with the jobs' backoff.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../db/client';
import type { Deps } from '../deps';
import { defineTimer, runDueTimers } from '../platform/jobs/index';
import {
  SANDBOX_SCREENING_DELIVERY,
  SANDBOX_TRAVEL_RULE_DELIVERY,
  type SandboxDelivery,
} from './sandbox-deliveries';

type LegacyTable = 'sandbox_screening_jobs' | 'sandbox_travel_rule_jobs';

/** The previous release's undelivered rows of `table`, for the timers' backfill. */
const legacyRows = (table: LegacyTable) =>
  sql.raw(`select 'sandbox-delivery:' || id::text as key,
                  jsonb_build_object('id', id::text, 'subject', subject_ref, 'body', payload, 'legacy', true) as payload,
                  null::uuid as client_id, due_at as run_at
             from ${table}
            where delivered_at is null and due_at is not null and payload is not null`);

/** A previous release's row is claimed before it is sent (as its sweep did): false when already sent. */
async function claimLegacy(deps: Deps, table: LegacyTable, p: SandboxDelivery): Promise<boolean> {
  if (!p.legacy) return true;
  const res = await deps.db.execute(sql`
    update ${sql.identifier(table)} set delivered_at = ${deps.clock.now()}
     where id = ${p.id}::uuid and delivered_at is null returning id`);
  return rowsOf(res).length > 0;
}

export const sandboxScreeningDeliveryTimer = defineTimer<SandboxDelivery>({
  ...SANDBOX_SCREENING_DELIVERY,
  label: 'Sandbox screening notification',
  backfill: () => legacyRows('sandbox_screening_jobs'),
  async fire(deps, p) {
    const sandbox = deps.providers.screening.sandbox;
    if (!sandbox || !(await claimLegacy(deps, 'sandbox_screening_jobs', p))) return false;
    await sandbox.deliverScheduled(p.body);
    return true;
  },
});

export const sandboxTravelRuleDeliveryTimer = defineTimer<SandboxDelivery>({
  ...SANDBOX_TRAVEL_RULE_DELIVERY,
  label: 'Sandbox travel-rule answer',
  backfill: () => legacyRows('sandbox_travel_rule_jobs'),
  async fire(deps, p) {
    const sandbox = deps.providers.travelRule.sandbox;
    if (!sandbox || !(await claimLegacy(deps, 'sandbox_travel_rule_jobs', p))) return false;
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
