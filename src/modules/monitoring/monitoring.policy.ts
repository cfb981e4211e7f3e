/**
 * The monitoring policy: its defaults, the checks TypeBox cannot express (unique rule ids,
 * per-type params, remediation_type with require_user) and its canonical stored form.
 */
import { ValidationError, type ValidationIssue } from '../../shared/errors';
import {
  checkRuleParams,
  normalizeParams,
  type RemediationType,
  type Rule,
  type RuleAction,
  type RuleType,
} from './rules.policy';

export const SANCTIONS_ACTIONS = ['review', 'decline'] as const;
export const EXPIRY_DECISIONS = ['IN_REVIEW', 'DECLINED'] as const;

export interface PolicyBody {
  rules: Rule[];
  review_score: number;
  decline_score: number;
  /**
   * `match_threshold` (50-100): the lowest name-match score that counts as a sanctions hit for this
   * client; null (or absent in policies stored before it existed) is SVC_SANCTIONS_MATCH_THRESHOLD.
   */
  sanctions: { enabled: boolean; action: (typeof SANCTIONS_ACTIONS)[number]; match_threshold: number | null };
  remediation_ttl_hours: number;
  on_remediation_expiry: (typeof EXPIRY_DECISIONS)[number];
}

export interface Policy extends PolicyBody {
  version: number;
  updated_at: string | null;
  updated_by_account_id: string | null;
}

export const DEFAULT_POLICY: PolicyBody = {
  rules: [],
  review_score: 50,
  decline_score: 100,
  sanctions: { enabled: true, action: 'review', match_threshold: null },
  remediation_ttl_hours: 72,
  on_remediation_expiry: 'IN_REVIEW',
};

/** The policy as a client sends it (TypeBox has checked shapes and ranges already). */
export interface PolicyInput {
  rules: {
    rule_id: string;
    name: string;
    type: RuleType;
    params?: Record<string, unknown>;
    enabled?: boolean;
    action: RuleAction;
    score?: number;
    remediation_type?: RemediationType | null;
  }[];
  review_score?: number;
  decline_score?: number;
  sanctions?: {
    enabled?: boolean;
    action?: (typeof SANCTIONS_ACTIONS)[number];
    match_threshold?: number | null;
  };
  remediation_ttl_hours?: number;
  on_remediation_expiry?: (typeof EXPIRY_DECISIONS)[number];
}

/** Validates and canonicalizes a policy; 422 with every problem, `loc` under `base` (["body"] or ["body","policy"]). */
export function parsePolicy(input: PolicyInput, base: (string | number)[]): PolicyBody {
  const issues: ValidationIssue[] = [];
  const seen = new Map<string, number>();
  const rules: Rule[] = input.rules.map((r, i) => {
    const loc = [...base, 'rules', i];
    const prev = seen.get(r.rule_id);
    if (prev !== undefined)
      issues.push({ loc: [...loc, 'rule_id'], msg: `Duplicate rule_id '${r.rule_id}'`, type: 'value_error' });
    seen.set(r.rule_id, i);
    const params = r.params ?? {};
    checkRuleParams(r.type, params, [...loc, 'params'], issues);
    if (r.action === 'require_user' && !r.remediation_type)
      issues.push({
        loc: [...loc, 'remediation_type'],
        msg: 'remediation_type is required with action require_user',
        type: 'missing',
      });
    return {
      rule_id: r.rule_id,
      name: r.name,
      type: r.type,
      params: normalizeParams(r.type, params),
      enabled: r.enabled ?? true,
      action: r.action,
      score: r.score ?? 0,
      remediation_type:
        r.action === 'require_user' ? (r.remediation_type ?? null) : (r.remediation_type ?? null),
    };
  });
  const review = input.review_score ?? DEFAULT_POLICY.review_score;
  const decline = input.decline_score ?? DEFAULT_POLICY.decline_score;
  if (review > decline)
    issues.push({
      loc: [...base, 'review_score'],
      msg: 'review_score must not be greater than decline_score',
      type: 'value_error',
    });
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    rules,
    review_score: review,
    decline_score: decline,
    sanctions: {
      enabled: input.sanctions?.enabled ?? DEFAULT_POLICY.sanctions.enabled,
      action: input.sanctions?.action ?? DEFAULT_POLICY.sanctions.action,
      match_threshold: input.sanctions?.match_threshold ?? null,
    },
    remediation_ttl_hours: input.remediation_ttl_hours ?? DEFAULT_POLICY.remediation_ttl_hours,
    on_remediation_expiry: input.on_remediation_expiry ?? DEFAULT_POLICY.on_remediation_expiry,
  };
}

/** A stored policy row as the API shows it; version 0 is the default every new client starts with. */
export function policyView(
  row: {
    version: number;
    policy: Record<string, unknown>;
    updatedByAccountId: string | null;
    createdAt: Date;
  } | null,
): Policy {
  if (!row) return { version: 0, ...DEFAULT_POLICY, updated_at: null, updated_by_account_id: null };
  const body = row.policy as unknown as PolicyBody;
  return {
    version: row.version,
    ...body,
    sanctions: { ...body.sanctions, match_threshold: body.sanctions.match_threshold ?? null },
    updated_at: row.createdAt.toISOString(),
    updated_by_account_id: row.updatedByAccountId,
  };
}
