/**
 * The screening of inbound transfers received while the sanctions lists could not answer: a
 * housekeeping task (see the manifest).
 */
import { and, asc, eq } from 'drizzle-orm';
import { travelRuleTransfers } from '../../db/schema/travel-rule';
import type { Deps } from '../../deps';
import { screenPartyNames } from './parties.policy';

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
