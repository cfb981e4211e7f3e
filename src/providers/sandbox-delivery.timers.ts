/**
 * The handlers of the sandbox simulators' delayed notifications (sandbox-deliveries.ts), listed in
 * the sandbox providers' manifest. A delivery whose simulator is no longer the configured provider
 * is dropped, and so is an e-signing action whose envelope was voided; a refused post throws and is
 * retried with the jobs' backoff.
 *
 * Screening and travel-rule notifications have no backfill: the previous release already scheduled
 * them as jobs (its own backfill gave the rows of the release before it a job), so no row of the old
 * queue tables can still be due. A job that backfill wrote (`legacy` in its payload) and that is
 * still pending is sent as any other: its row is no longer claimed first, since no sweep of those
 * tables runs any more. The e-signing actions became timers in this release: the previous release's
 * rows of `sandbox_esign_actions` not yet done are backfilled and claimed before they are sent.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../db/client';
import type { Deps } from '../deps';
import { defineTimer, runDueTimers } from '../platform/jobs/index';
import {
  SANDBOX_ESIGN_ACTION,
  SANDBOX_SCREENING_DELIVERY,
  SANDBOX_TRAVEL_RULE_DELIVERY,
  type SandboxDelivery,
} from './sandbox-deliveries';

/** A previous release's e-signing action is claimed before it is sent (as its sweep did): false when already done. */
async function claimLegacyEsignAction(deps: Deps, p: SandboxDelivery): Promise<boolean> {
  if (!p.legacy) return true;
  const res = await deps.db.execute(sql`
    update sandbox_esign_actions set done_at = ${deps.clock.now()}
     where id = ${p.id}::uuid and done_at is null returning id`);
  return rowsOf(res).length > 0;
}

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

/**
 * The e-signing simulator's `+autosign` / `+autodecline` action of one participant, due
 * SVC_SANDBOX_ESIGN_AUTO_SECONDS after its turn started (set when the simulator is told the
 * participant was invited; removed when the envelope is voided).
 */
export const sandboxEsignActionTimer = defineTimer<SandboxDelivery>({
  ...SANDBOX_ESIGN_ACTION,
  label: 'Sandbox e-signing action',
  backfill: () =>
    sql.raw(`select 'sandbox-delivery:' || id::text as key,
                    jsonb_build_object('id', id::text, 'subject', envelope_ref,
                      'body', jsonb_build_object('envelope_ref', envelope_ref, 'type', action,
                                                 'participant_id', participant_id::text,
                                                 'reason', payload->>'reason'),
                      'legacy', true) as payload,
                    null::uuid as client_id, due_at as run_at
               from sandbox_esign_actions
              where done_at is null`),
  async fire(deps, p) {
    const esign = deps.providers.esign;
    if (!esign.deliverScheduled || !(await claimLegacyEsignAction(deps, p))) return false;
    return esign.deliverScheduled(p.body);
  },
});

/** Runs the due screening notifications now (runDueScreeningTimers, for tests); returns how many were sent. */
export const deliverDueSandboxScreening = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxScreeningDeliveryTimer]);

/** Runs the due travel-rule answers now (the travel-rule pass, for tests); returns how many were sent. */
export const deliverDueSandboxTravelRule = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxTravelRuleDeliveryTimer]);

/** Runs the due e-signing actions now (runDueContractTimers, for tests); returns how many were sent. */
export const runDueSandboxEsignActions = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxEsignActionTimer]);
