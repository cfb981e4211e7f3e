/**
 * The handlers of the sandbox simulators' delayed notifications (sandbox-deliveries.ts), listed in
 * the sandbox providers' manifest. A delivery whose simulator is no longer the configured provider
 * is dropped, and so is an e-signing action whose envelope was voided; a refused post throws and is
 * retried with the jobs' backoff.
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

type LegacyTable = 'sandbox_screening_jobs' | 'sandbox_travel_rule_jobs' | 'sandbox_esign_actions';

/** The column by which a previous release marked a row of `table` sent. */
const SENT_AT: Record<LegacyTable, string> = {
  sandbox_screening_jobs: 'delivered_at',
  sandbox_travel_rule_jobs: 'delivered_at',
  sandbox_esign_actions: 'done_at',
};

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
  const sentAt = sql.identifier(SENT_AT[table]);
  const res = await deps.db.execute(sql`
    update ${sql.identifier(table)} set ${sentAt} = ${deps.clock.now()}
     where id = ${p.id}::uuid and ${sentAt} is null returning id`);
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

/**
 * The e-signing simulator's `+autosign` / `+autodecline` action of one participant, due
 * SVC_SANDBOX_ESIGN_AUTO_SECONDS after its turn started (set when the simulator is told the
 * participant was invited; removed when the envelope is voided). The previous release's rows of
 * `sandbox_esign_actions` not yet done are backfilled, each claimed before it is sent.
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
    if (!esign.deliverScheduled || !(await claimLegacy(deps, 'sandbox_esign_actions', p))) return false;
    return esign.deliverScheduled(p.body);
  },
});

/** Runs the due screening notifications now (the screening pass, for tests); returns how many were sent. */
export const deliverDueSandboxScreening = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxScreeningDeliveryTimer]);

/** Runs the due travel-rule answers now (the travel-rule pass, for tests); returns how many were sent. */
export const deliverDueSandboxTravelRule = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxTravelRuleDeliveryTimer]);

/** Runs the due e-signing actions now (the contracts pass, for tests); returns how many were sent. */
export const runDueSandboxEsignActions = (deps: Deps): Promise<number> =>
  runDueTimers(deps, [sandboxEsignActionTimer]);
