/** The decision machine's table and the engine's order, without a database (a fake history). */
import { describe, expect, it } from 'vitest';
import { type EvalContext, evaluate, type TxFacts } from '../../src/modules/monitoring/engine.policy';
import {
  canApply,
  DECISION_TRANSITIONS,
  decideRemediationExpiry,
  decideRemediationSubmit,
  decideReview,
  isFinal,
} from '../../src/modules/monitoring/monitoring.machine';
import { DEFAULT_POLICY } from '../../src/modules/monitoring/monitoring.policy';
import type { Rule } from '../../src/modules/monitoring/rules.policy';

describe('decision machine', () => {
  it('has exactly the rows of the spec after the first decision', () => {
    expect(
      Object.values(DECISION_TRANSITIONS)
        .flatMap((t) => t.from.map((f) => `${f}->${t.to}`))
        .sort(),
    ).toEqual(
      [
        'IN_REVIEW->APPROVED',
        'AWAITING_USER->APPROVED',
        'IN_REVIEW->DECLINED',
        'AWAITING_USER->DECLINED',
        'IN_REVIEW->AWAITING_USER',
        'AWAITING_USER->IN_REVIEW',
        'AWAITING_USER->IN_REVIEW',
        'AWAITING_USER->DECLINED',
      ].sort(),
    );
    expect(isFinal('APPROVED') && isFinal('DECLINED')).toBe(true);
    expect(isFinal('IN_REVIEW') || isFinal('AWAITING_USER')).toBe(false);
  });

  it('refuses reviews of final decisions and to the same decision', () => {
    expect(() => decideReview('APPROVED', 'DECLINED')).toThrow(
      'Monitored transaction already has a final decision',
    );
    expect(() => decideReview('DECLINED', 'APPROVED')).toThrow(
      'Monitored transaction already has a final decision',
    );
    expect(() => decideReview('AWAITING_USER', 'AWAITING_USER')).toThrow(
      'Decision must differ from the current decision',
    );
    expect(decideReview('IN_REVIEW', 'AWAITING_USER')).toBe('review_await_user');
    expect(decideReview('AWAITING_USER', 'APPROVED')).toBe('review_approve');
    expect(canApply('review_await_user', 'AWAITING_USER')).toBe(false);
  });

  it('remediation moves need a pending remediation', () => {
    expect(decideRemediationSubmit('AWAITING_USER', 'pending')).toBe('remediation_submitted');
    expect(() => decideRemediationSubmit('AWAITING_USER', 'submitted')).toThrow();
    expect(decideRemediationExpiry('AWAITING_USER', 'pending', 'DECLINED')).toBe(
      'remediation_expired_decline',
    );
    expect(decideRemediationExpiry('AWAITING_USER', 'pending', 'IN_REVIEW')).toBe(
      'remediation_expired_review',
    );
    expect(() => decideRemediationExpiry('IN_REVIEW', 'pending', 'IN_REVIEW')).toThrow();
  });
});

describe('engine', () => {
  const facts: TxFacts = {
    clientReference: 'r',
    amount: '950.00',
    currency: 'EUR',
    occurredAt: new Date('2026-11-01T12:00:00Z'),
    paymentMethod: 'card',
    counterpartyCountry: 'FR',
    customerCountry: null,
    hasWallet: false,
  };
  const r = (
    rule_id: string,
    type: Rule['type'],
    params: Record<string, unknown>,
    action: Rule['action'] = 'review',
    score = 0,
  ): Rule => ({
    rule_id,
    name: rule_id,
    type,
    params,
    enabled: true,
    action,
    score,
    remediation_type: action === 'require_user' ? 'source_of_funds' : null,
  });

  it('asks the history once for every history rule, and decides in the contract order', async () => {
    const calls: unknown[] = [];
    const ctx: EvalContext = {
      async history(reqs) {
        calls.push(reqs);
        return reqs.map((q) => (q.kind === 'sum' ? '100.50' : '2'));
      },
      customer: async () => ({ verified: true, since: new Date('2020-01-01') }),
      walletRisk: async () => null,
    };
    const policy = {
      ...DEFAULT_POLICY,
      rules: [
        r('vc', 'velocity_count', { count: 2, window_hours: 24 }, 'score', 30),
        r('va', 'velocity_amount', { amount: '1000.00', currency: 'EUR', window_hours: 24 }, 'require_user'),
        r(
          'st',
          'structuring',
          { threshold: '1000.00', currency: 'EUR', count: 3, window_hours: 48 },
          'score',
          30,
        ),
      ],
    };
    const ev = await evaluate(policy, facts, [], ctx, { sandbox: false });
    expect(calls).toHaveLength(1);
    expect((calls[0] as { kind: string }[]).map((q) => q.kind)).toEqual(['count', 'sum', 'band']);
    // 3 > 2, 100.50 + 950 > 1000, 2 + 1 >= 3; score 60 >= 50 but require_user comes first.
    expect(ev.rule_hits.map((h) => h.rule_id)).toEqual(['vc', 'va', 'st']);
    expect(ev).toMatchObject({ decision: 'AWAITING_USER', score: 60, remediation_type: 'source_of_funds' });
    // Forced outcomes only in sandbox.
    const forced = await evaluate(policy, { ...facts, clientReference: 'sim_decline_1' }, [], ctx, {
      sandbox: false,
    });
    expect(forced.decision).toBe('AWAITING_USER');
  });
});
