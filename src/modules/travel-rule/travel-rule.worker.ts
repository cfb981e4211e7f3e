/**
 * The travel rule's background work outside its timers: the sanctions screening of inbound transfers
 * received while the lists could not answer (a housekeeping task, see the manifest), and the pass
 * tests and the CLI run: that task, the due expiry timers (expiry.service.ts) and the sandbox
 * network's due answers (timers the jobs runner runs anyway).
 */
import { and, asc, eq } from 'drizzle-orm';
import { travelRuleTransfers } from '../../db/schema/travel-rule';
import type { Deps } from '../../deps';
import { deliverDueSandboxTravelRule } from '../../providers/sandbox-delivery.timers';
import { expireDueTransfers } from './expiry.service';
import { screenPartyNames } from './parties';

/**
 * Inbound transfers kept while the sanctions lists could not answer (`sanctions_screening:
 * "unavailable"`) are screened once the lists answer again: their parties' hits are stored and the
 * flag becomes `screened` (a compare-and-set on the flag, so two nodes never both write). Stops at the
 * first transfer the lists still cannot answer for.
 */
export async function rescreenUnavailableTransfers(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>,
  limit = 20,
): Promise<number> {
  const t = travelRuleTransfers;
  const due = await deps.db
    .select({ id: t.id, clientId: t.clientId, originator: t.originator, beneficiary: t.beneficiary })
    .from(t)
    .where(eq(t.sanctionsScreening, 'unavailable'))
    .orderBy(asc(t.createdAt))
    .limit(limit);
  let n = 0;
  for (const row of due) {
    let matches: Awaited<ReturnType<typeof screenPartyNames>>;
    try {
      matches = await screenPartyNames(deps, [
        row.originator as Record<string, unknown>,
        row.beneficiary as Record<string, unknown>,
      ]);
    } catch {
      return n; // still unavailable: the next pass tries again
    }
    const done = await deps.db
      .update(t)
      .set({
        sanctionsMatches: matches,
        sanctionsScreening: matches === null ? 'not_configured' : 'screened',
        updatedAt: deps.clock.now(),
      })
      .where(and(eq(t.id, row.id), eq(t.clientId, row.clientId), eq(t.sanctionsScreening, 'unavailable')))
      .returning({ id: t.id });
    n += done.length;
  }
  return n;
}

/** The pass tests and the CLI run (the service runs each part on its own: timers, housekeeping). */
export async function runTravelRuleWorker(deps: Deps): Promise<number> {
  let n = await expireDueTransfers(deps);
  n += await rescreenUnavailableTransfers(deps);
  // The sandbox network's due answers are timer jobs the jobs runner sends; the pass runs them too,
  // for its callers (tests).
  if (deps.providers.travelRule.sandbox) n += await deliverDueSandboxTravelRule(deps);
  return n;
}
