/** One pass of the travel-rule worker: expiry of unanswered transfers (and the sandbox network's due answers, for tests). */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { deliverDueSandboxTravelRule } from '../../providers/sandbox-delivery.timers';
import { moveTransfer } from './travel-rule.machine';
import { TravelRuleMessages } from './travel-rule.messages';
import { findTransfer } from './travel-rule.repo';

/** Transfers awaiting an answer past `expires_at` become expired (claimed with FOR UPDATE SKIP LOCKED). */
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
      if (await moveTransfer(tx, t, 'expire', { now, set: { statusReason: TravelRuleMessages.expired } }))
        n++;
    }
    return n;
  });
}

export async function runTravelRuleWorker(deps: Deps): Promise<number> {
  let n = await expireDueTransfers(deps, 50);
  // The sandbox network's due answers are timer jobs the jobs runner sends; the pass runs them too,
  // for its callers (tests).
  if (deps.providers.travelRule.sandbox) n += await deliverDueSandboxTravelRule(deps);
  return n;
}
