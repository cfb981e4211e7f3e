/**
 * The rule types of a monitoring policy and their parameter validation (docs/guides/monitoring.md).
 * A bad rule is a 422 whose `loc` points into the rule, e.g. ["body","rules",3,"params","amount"].
 */

import { isKnownCurrency, normalizeAmount } from '../../platform/decimal';
import type { ValidationIssue } from '../../shared/errors';

export const RULE_TYPES = [
  'amount_above',
  'velocity_count',
  'velocity_amount',
  'structuring',
  'country_in',
  'customer_not_verified',
  'new_customer',
  'payment_method_in',
  'counterparty_wallet_risk',
] as const;
export type RuleType = (typeof RULE_TYPES)[number];

export const RULE_ACTIONS = ['score', 'review', 'decline', 'require_user'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export const REMEDIATION_TYPES = ['source_of_funds', 'identity_reverification', 'wallet_ownership'] as const;
export type RemediationType = (typeof REMEDIATION_TYPES)[number];

export const PAYMENT_METHODS = ['bank_transfer', 'card', 'crypto', 'cash', 'other'] as const;
export const WALLET_RISK_LEVELS = ['low', 'medium', 'high', 'severe'] as const;
export type WalletRiskLevel = (typeof WALLET_RISK_LEVELS)[number];

export interface Rule {
  rule_id: string;
  name: string;
  type: RuleType;
  params: Record<string, unknown>;
  enabled: boolean;
  action: RuleAction;
  score: number;
  remediation_type: RemediationType | null;
}

type Loc = (string | number)[];
type Check = (v: unknown, loc: Loc, issues: ValidationIssue[]) => void;

const issue = (issues: ValidationIssue[], loc: Loc, msg: string, type = 'value_error') =>
  issues.push({ loc, msg, type });

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
export function isCountryCode(c: unknown): c is string {
  return typeof c === 'string' && /^[A-Z]{2}$/.test(c) && regionNames.of(c) !== c;
}

const int =
  (min: number, max: number): Check =>
  (v, loc, issues) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      issue(issues, loc, `Must be an integer from ${min} to ${max}`);
  };
const currency: Check = (v, loc, issues) => {
  if (typeof v !== 'string' || !isKnownCurrency(v)) issue(issues, loc, 'Must be an ISO 4217 currency code');
};
/** An amount in the currency found at `params.currency` (checked separately). */
const amountIn =
  (currencyOf: (p: Record<string, unknown>) => unknown) =>
  (p: Record<string, unknown>): Check =>
  (v, loc, issues) => {
    const cur = currencyOf(p);
    if (typeof v !== 'string') return issue(issues, loc, 'Must be a decimal string greater than 0');
    const n = normalizeAmount(v, typeof cur === 'string' && isKnownCurrency(cur) ? cur : 'EUR');
    if (!n.ok) issue(issues, loc, 'Must be a decimal string greater than 0');
  };
const enumList =
  (values: readonly string[], what: string, check?: (x: unknown) => boolean): Check =>
  (v, loc, issues) => {
    if (!Array.isArray(v) || v.length === 0 || v.length > 250)
      return issue(issues, loc, `Must be a list of 1-250 ${what}`);
    v.forEach((x, i) => {
      const ok = check ? check(x) : typeof x === 'string' && values.includes(x);
      if (!ok) issue(issues, [...loc, i], `Unknown ${what.replace(/s$/, '')} '${String(x)}'`);
    });
    if (new Set(v).size !== v.length) issue(issues, loc, `Duplicate ${what}`);
  };
const oneOf =
  (values: readonly string[]): Check =>
  (v, loc, issues) => {
    if (typeof v !== 'string' || !values.includes(v))
      issue(issues, loc, `Must be one of: ${values.join(', ')}`);
  };

const amountOf = amountIn((p) => p.currency);
const WINDOW = int(1, 8760);

/** Required parameters per rule type (every one is required; unknown ones are refused). */
const PARAMS: Record<RuleType, (p: Record<string, unknown>) => Record<string, Check>> = {
  amount_above: (p) => ({ amount: amountOf(p), currency }),
  velocity_count: () => ({ count: int(1, 100000), window_hours: WINDOW }),
  velocity_amount: (p) => ({ amount: amountOf(p), currency, window_hours: WINDOW }),
  structuring: (p) => ({
    threshold: amountIn((q) => q.currency)(p),
    currency,
    count: int(1, 100000),
    window_hours: WINDOW,
  }),
  country_in: () => ({
    countries: enumList([], 'countries', isCountryCode),
    party: oneOf(['counterparty', 'customer']),
  }),
  customer_not_verified: () => ({}),
  new_customer: () => ({ days: int(1, 3650) }),
  payment_method_in: () => ({ methods: enumList(PAYMENT_METHODS, 'methods') }),
  counterparty_wallet_risk: () => ({ min_risk_level: oneOf(WALLET_RISK_LEVELS) }),
};

/** Checks the params of a rule of a known type; issues get `loc` under `base` (…, "params"). */
export function checkRuleParams(
  type: RuleType,
  params: Record<string, unknown>,
  base: Loc,
  issues: ValidationIssue[],
): void {
  const checks = PARAMS[type](params);
  for (const [key, check] of Object.entries(checks)) {
    if (params[key] === undefined) issue(issues, [...base, key], 'Field required', 'missing');
    else check(params[key], [...base, key], issues);
  }
  for (const key of Object.keys(params))
    if (!(key in checks)) issue(issues, [...base, key], `Unknown parameter '${key}' for rule type '${type}'`);
}

/** Canonical params: amounts normalized to the currency's minor units, countries upper-case. */
export function normalizeParams(type: RuleType, params: Record<string, unknown>): Record<string, unknown> {
  const out = { ...params };
  const cur = params.currency as string | undefined;
  for (const key of ['amount', 'threshold'] as const) {
    if (typeof out[key] === 'string' && cur) {
      const n = normalizeAmount(out[key] as string, cur);
      if (n.ok) out[key] = n.value;
    }
  }
  if (type === 'country_in') out.countries = [...(params.countries as string[])];
  return out;
}
