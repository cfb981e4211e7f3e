/**
 * Our rules engine (docs/guides/monitoring.md): evaluates every enabled rule of a policy against a
 * transaction, then decides in the contract's order: sanctions, decline, require_user, review,
 * approve. History-based rules ask `EvalContext`, whose queries read the (client_id, subject_key,
 * occurred_at) index; the engine itself is pure.
 */

import { DECISIONS, type Decision } from '../../db/schema/monitoring';
import { add, compare, mulRate } from '../../platform/decimal';
import type { PolicyBody } from './monitoring.policy';
import type { RemediationType, Rule, RuleAction, WalletRiskLevel } from './rules.policy';
import { WALLET_RISK_LEVELS } from './rules.policy';

export { DECISIONS, type Decision };

export interface TxFacts {
  clientReference: string | null;
  amount: string;
  currency: string;
  occurredAt: Date;
  paymentMethod: string | null;
  counterpartyCountry: string | null;
  customerCountry: string | null;
  hasWallet: boolean;
}

export interface CustomerFacts {
  verified: boolean;
  /** When the customer became known: the user/business record, or the first monitored transaction. */
  since: Date;
}

export type WalletRisk = { status: 'completed'; level: WalletRiskLevel | 'unknown' } | { status: 'pending' };

/** One aggregate over the customer's history in (since, until]: a count, a sum, or a count within an amount band. */
export type HistoryRequest =
  | { kind: 'count'; since: Date }
  | { kind: 'sum'; currency: string; since: Date }
  | { kind: 'band'; currency: string; low: string; high: string; since: Date };

export interface EvalContext {
  /** Every aggregate at once (one indexed query), this transaction excluded; results as decimal strings. */
  history(requests: HistoryRequest[], until: Date): Promise<string[]>;
  customer(): Promise<CustomerFacts>;
  walletRisk(): Promise<WalletRisk | null>;
}

export interface SanctionsMatch {
  list: string;
  matched_name: string;
  match_score: number;
  entry_id?: string;
  entry_name?: string;
  screened_name?: string;
  /** The list version screened (official lists). */
  list_version?: string;
  alias_strength?: 'primary' | 'strong' | 'weak';
  date_of_birth_check?: 'agrees' | 'differs';
  country_check?: 'agrees' | 'differs';
}

export interface RuleHit {
  rule_id: string;
  name: string;
  type: string;
  action: RuleAction;
  score: number;
}

export interface Evaluation {
  decision: Decision;
  decision_reason: string;
  score: number;
  rule_hits: RuleHit[];
  sanctions_hit: boolean;
  sanctions_matches: SanctionsMatch[];
  remediation_type: RemediationType | null;
}

/** The union of every rule type's params (validated by rules.policy.ts before they are stored). */
interface RuleParams {
  amount: string;
  currency: string;
  count: number;
  window_hours: number;
  threshold: string;
  countries: string[];
  party: 'counterparty' | 'customer';
  days: number;
  methods: string[];
  min_risk_level: WalletRiskLevel;
}

const HOUR = 3_600_000;
/** The structuring band's low end: 90% of the threshold, at 18 decimals (truncated). */
const ninetyPercent = (threshold: string) => mulRate(threshold, '0.9', 18, 'down');
const windowStart = (t: TxFacts, hours: number) => new Date(t.occurredAt.getTime() - hours * HOUR);

/** The history aggregate a rule needs, if any (velocity and structuring rules). */
function historyRequestOf(rule: Rule, t: TxFacts): HistoryRequest | null {
  const p = rule.params as unknown as RuleParams;
  switch (rule.type) {
    case 'velocity_count':
      return { kind: 'count', since: windowStart(t, p.window_hours) };
    case 'velocity_amount':
      return t.currency === p.currency
        ? { kind: 'sum', currency: p.currency, since: windowStart(t, p.window_hours) }
        : null;
    case 'structuring':
      return t.currency === p.currency
        ? {
            kind: 'band',
            currency: p.currency,
            low: ninetyPercent(p.threshold),
            high: p.threshold,
            since: windowStart(t, p.window_hours),
          }
        : null;
    default:
      return null;
  }
}

/** Whether a rule matches; 'pending' for a wallet screening that has no result yet (counts as review). */
async function matches(
  rule: Rule,
  t: TxFacts,
  ctx: EvalContext,
  history: string | undefined,
): Promise<boolean | 'pending'> {
  const p = rule.params as unknown as RuleParams;
  switch (rule.type) {
    case 'amount_above':
      return t.currency === p.currency && compare(t.amount, p.amount) > 0;
    case 'velocity_count':
      return Number(history ?? '0') + 1 > p.count;
    case 'velocity_amount': {
      if (t.currency !== p.currency) return false;
      return compare(add(history ?? '0', t.amount), p.amount) > 0;
    }
    case 'structuring': {
      const low = ninetyPercent(p.threshold);
      const inBand = (a: string) => compare(a, low) >= 0 && compare(a, p.threshold) < 0;
      if (t.currency !== p.currency || !inBand(t.amount)) return false;
      return Number(history ?? '0') + 1 >= p.count;
    }
    case 'country_in': {
      const c = p.party === 'customer' ? t.customerCountry : t.counterpartyCountry;
      return c !== null && p.countries.includes(c.toUpperCase());
    }
    case 'customer_not_verified':
      return !(await ctx.customer()).verified;
    case 'new_customer': {
      const since = (await ctx.customer()).since;
      return t.occurredAt.getTime() - since.getTime() < p.days * 24 * HOUR;
    }
    case 'payment_method_in':
      return t.paymentMethod !== null && p.methods.includes(t.paymentMethod);
    case 'counterparty_wallet_risk': {
      if (!t.hasWallet) return false;
      const risk = await ctx.walletRisk();
      if (!risk || risk.status === 'pending') return 'pending';
      // unknown is never treated as low: it cannot be cleared automatically.
      if (risk.level === 'unknown') return 'pending';
      return WALLET_RISK_LEVELS.indexOf(risk.level) >= WALLET_RISK_LEVELS.indexOf(p.min_risk_level);
    }
  }
}

const FORCED: Record<string, Decision> = {
  sim_approve_: 'APPROVED',
  sim_review_: 'IN_REVIEW',
  sim_decline_: 'DECLINED',
  sim_await_: 'AWAITING_USER',
};

export function forcedOutcome(clientReference: string | null, sandbox: boolean): Decision | null {
  if (!sandbox || !clientReference) return null;
  for (const [prefix, d] of Object.entries(FORCED)) if (clientReference.startsWith(prefix)) return d;
  return null;
}

export async function evaluate(
  policy: PolicyBody,
  t: TxFacts,
  sanctions: SanctionsMatch[],
  ctx: EvalContext,
  opts: { sandbox: boolean },
): Promise<Evaluation> {
  const hits: RuleHit[] = [];
  const enabled = policy.rules.filter((r) => r.enabled);
  const requests = enabled.map((r) => historyRequestOf(r, t));
  const wanted = requests.filter((q): q is HistoryRequest => q !== null);
  const results = wanted.length > 0 ? await ctx.history(wanted, t.occurredAt) : [];
  let next = 0;
  const historyOfRule = requests.map((q) => (q ? results[next++] : undefined));
  for (const [i, rule] of enabled.entries()) {
    const m = await matches(rule, t, ctx, historyOfRule[i]);
    if (m === false) continue;
    const action: RuleAction = m === 'pending' ? 'review' : rule.action;
    hits.push({
      rule_id: rule.rule_id,
      name: rule.name,
      type: rule.type,
      action,
      score: action === 'score' ? rule.score : 0,
    });
  }
  const score = hits.reduce((s, h) => s + h.score, 0);
  const sanctionsHit = policy.sanctions.enabled && sanctions.length > 0;
  const base = {
    score,
    rule_hits: hits,
    sanctions_hit: sanctionsHit,
    sanctions_matches: policy.sanctions.enabled ? sanctions : [],
  };
  const requireUser = hits.find((h) => h.action === 'require_user');
  const remediationOf = (rid: string | undefined): RemediationType | null =>
    policy.rules.find((r) => r.rule_id === rid)?.remediation_type ?? null;

  const forced = forcedOutcome(t.clientReference, opts.sandbox);
  if (forced) {
    const rt = forced === 'AWAITING_USER' ? (remediationOf(requireUser?.rule_id) ?? 'source_of_funds') : null;
    return { ...base, decision: forced, decision_reason: 'Sandbox forced outcome', remediation_type: rt };
  }
  const decided = (decision: Decision, reason: string, rt: RemediationType | null = null): Evaluation => ({
    ...base,
    decision,
    decision_reason: reason,
    remediation_type: rt,
  });
  // 1. Sanctions match: the policy's sanctions action.
  if (sanctionsHit)
    return decided(
      policy.sanctions.action === 'decline' ? 'DECLINED' : 'IN_REVIEW',
      `Sanctions match: ${sanctions.map((s) => `${s.matched_name} (${s.list})`).join(', ')}`,
    );
  // 2. A decline rule, or total score >= decline_score.
  const decline = hits.find((h) => h.action === 'decline');
  if (decline) return decided('DECLINED', `Rule '${decline.rule_id}' (${decline.name}): decline`);
  if (score >= policy.decline_score)
    return decided('DECLINED', `Score ${score} reached decline_score ${policy.decline_score}`);
  // 3. A require_user rule: AWAITING_USER with its remediation.
  if (requireUser)
    return decided(
      'AWAITING_USER',
      `Rule '${requireUser.rule_id}' (${requireUser.name}): require_user`,
      remediationOf(requireUser.rule_id),
    );
  // 4. A review rule, or total score >= review_score.
  const review = hits.find((h) => h.action === 'review');
  if (review) return decided('IN_REVIEW', `Rule '${review.rule_id}' (${review.name}): review`);
  if (score >= policy.review_score)
    return decided('IN_REVIEW', `Score ${score} reached review_score ${policy.review_score}`);
  // 5. Otherwise APPROVED.
  return decided(
    'APPROVED',
    hits.length === 0 ? 'No rule matched' : `Score ${score} below review_score ${policy.review_score}`,
  );
}
