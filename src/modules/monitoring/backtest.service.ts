/**
 * POST /monitoring/policy/backtest: replays a candidate policy over the client's monitored
 * transactions of the last 90 days, each as of its own occurred_at (its history excludes itself,
 * exactly as at submission). Nothing is stored and no event is sent.
 */
import type { Deps } from '../../deps';
import { addDays } from '../../platform/calendar';
import { normalizeTx } from './context.service';
import { DECISIONS } from './engine.policy';
import { type PolicyInput, parsePolicy } from './monitoring.policy';
import { recentForBacktest } from './monitoring.repo';
import type { TransactionInput } from './monitoring.schemas';
import { evaluateTx, prescreen } from './monitoring.service';
import { amountView } from './monitoring.view';

export const BACKTEST_DAYS = 90;
/** The newest records replayed at most; `truncated` says when older ones in the window were left out. */
export const BACKTEST_MAX_RECORDS = 5000;

const zeroCounts = () => Object.fromEntries(DECISIONS.map((d) => [d, 0])) as Record<string, number>;

export async function backtestPolicy(
  deps: Pick<Deps, 'db' | 'clock' | 'config' | 'providers' | 'log'>,
  clientId: string,
  input: { policy: PolicyInput },
) {
  const policy = parsePolicy(input.policy, ['body', 'policy']);
  const now = deps.clock.now();
  const since = addDays(now, -BACKTEST_DAYS);
  const rows = await recentForBacktest(deps.db, clientId, since, BACKTEST_MAX_RECORDS + 1);
  const truncated = rows.length > BACKTEST_MAX_RECORDS;
  const replay = rows.slice(0, BACKTEST_MAX_RECORDS);
  const counts = zeroCounts();
  const current = zeroCounts();
  const changed = [];
  for (const r of replay) {
    const t = {
      direction: r.direction,
      amount: amountView(r.amount, 0),
      currency: r.currency,
      occurred_at: r.occurredAt.toISOString(),
      ...(r.paymentMethod ? { payment_method: r.paymentMethod } : {}),
      ...(r.userId ? { user_id: r.userId } : {}),
      ...(r.businessCustomerId ? { business_customer_id: r.businessCustomerId } : {}),
      ...(r.customer ? { customer: r.customer } : {}),
      counterparty: r.counterparty,
    } as unknown as TransactionInput;
    const n = await normalizeTx(deps.db, clientId, t, now, ['record', r.id], r.clientReference);
    n.amount = r.amount;
    const pre = await prescreen(deps, clientId, n, policy, 'read');
    const ev = await evaluateTx(deps, deps.db, clientId, n, policy, r.clientReference, r.id, pre);
    counts[ev.decision] = (counts[ev.decision] ?? 0) + 1;
    current[r.decision] = (current[r.decision] ?? 0) + 1;
    if (ev.decision !== r.decision)
      changed.push({
        monitored_transaction_id: r.id,
        client_reference: r.clientReference,
        current_decision: r.decision,
        decision: ev.decision,
        decision_reason: ev.decision_reason,
        score: ev.score,
      });
  }
  return {
    since: since.toISOString(),
    evaluated: replay.length,
    truncated,
    current_counts: current,
    counts,
    changed,
  };
}
