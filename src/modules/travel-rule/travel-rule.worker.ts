/**
 * One pass of the travel-rule worker: expiry of unanswered transfers, the sanctions screening of
 * inbound transfers received while the lists could not answer (and the sandbox network's due
 * answers, for tests).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { travelRuleTransfers } from '../../db/schema/travel-rule';
import type { Deps } from '../../deps';
import { deliverDueSandboxTravelRule } from '../../providers/sandbox-delivery.timers';
import { oweCounterpartyMessage, REVIEW_EXPIRED_REASON } from './counterparty-messages.service';
import { screenPartyNames } from './parties';
import { moveTransfer } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findTransfer } from './travel-rule.repo';

/**
 * Transfers awaiting an answer past `expires_at` become expired (claimed with FOR UPDATE SKIP LOCKED);
 * the originator VASP of an inbound transfer left unreviewed is sent a rejection (a job written with
 * the move).
 */
export async function expireDueTransfers(deps: Pick<Deps, 'db' | 'clock'>, limit = 50): Promise<number> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const res = await tx.execute(sql`
      select id from travel_rule_transfers
      where status in ('awaiting_counterparty', 'needs_repair', 'awaiting_review')
        and expires_at <= ${now.toISOString()}::timestamptz
      order by expires_at limit ${limit} for update skip locked`);
    let n = 0;
    for (const { id } of rowsOf<{ id: string }>(res)) {
      const t = (await findTransfer(tx, null, id))!;
      const moved = await moveTransfer(tx, t, 'expire', {
        now,
        set: { statusReason: TravelRuleMessages.expired },
      });
      if (!moved) continue;
      n++;
      if (moved.direction === 'inbound' && moved.networkRef)
        await oweCounterpartyMessage(tx, deps.clock, moved, 'rejected', REVIEW_EXPIRED_REASON);
    }
    return n;
  });
}

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

export async function runTravelRuleWorker(deps: Deps): Promise<number> {
  let n = await expireDueTransfers(deps, 50);
  n += await rescreenUnavailableTransfers(deps);
  // The sandbox network's due answers are timer jobs the jobs runner sends; the pass runs them too,
  // for its callers (tests).
  if (deps.providers.travelRule.sandbox) n += await deliverDueSandboxTravelRule(deps);
  return n;
}
