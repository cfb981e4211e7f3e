/** Plan splits are decimal-exact (BigInt minor units), dates are UTC calendar dates. */
import { describe, expect, it } from 'vitest';
import { deriveScheduleTrigger } from '../../src/modules/schedules/schedules.machine';
import {
  graceEndOf,
  issueAtOf,
  splitPlan,
  sumAmounts,
} from '../../src/modules/schedules/schedules-money.policy';
import { addMonths } from '../../src/platform/calendar';

describe('plan split', () => {
  it('rounds down to the minor unit, the remainder on the first, and always sums to the total', () => {
    expect(splitPlan('100.00', 3, 'EUR')).toEqual(['33.34', '33.33', '33.33']);
    expect(splitPlan('0.10', 3, 'EUR')).toEqual(['0.04', '0.03', '0.03']);
    expect(splitPlan('999999999999.99', 60, 'EUR')![0]).toBe('16666666667.05');
    expect(splitPlan('1000', 7, 'JPY')).toEqual(['148', '142', '142', '142', '142', '142', '142']);
    expect(splitPlan('0.05', 6, 'EUR')).toBeNull();
    for (const [total, n] of [
      ['0.07', 2],
      ['12345.67', 59],
      ['0.30', 3],
      ['1.01', 60],
    ] as const)
      expect(sumAmounts(splitPlan(total, n, 'EUR')!, 'EUR')).toBe(total);
  });

  it('month steps clamp to the last day; issue and grace times are UTC day boundaries', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
    expect(addMonths('2028-01-31', 1)).toBe('2028-02-29');
    expect(addMonths('2026-11-30', 3)).toBe('2027-02-28');
    expect(graceEndOf('2026-02-27', 2).toISOString()).toBe('2026-03-02T00:00:00.000Z');
    const now = new Date('2026-01-15T10:00:00Z');
    expect(issueAtOf('2026-01-20', 3, now).toISOString()).toBe('2026-01-17T00:00:00.000Z');
    expect(issueAtOf('2026-01-16', 3, now)).toEqual(now);
  });
});

describe('schedule status from its instalments', () => {
  it('every row of the table', () => {
    const i = (...s: string[]) => s.map((status) => ({ status }) as { status: 'paid' });
    expect(deriveScheduleTrigger('active', i('issued', 'overdue'))).toBe('fall_behind');
    expect(deriveScheduleTrigger('past_due', i('issued', 'scheduled'))).toBe('catch_up');
    expect(deriveScheduleTrigger('active', i('paid', 'canceled'))).toBe('complete');
    expect(deriveScheduleTrigger('past_due', i('paid', 'paid'))).toBe('complete');
    expect(deriveScheduleTrigger('active', i('canceled', 'canceled'))).toBe('cancel');
    expect(deriveScheduleTrigger('past_due', i('canceled'))).toBe('cancel');
    expect(deriveScheduleTrigger('active', i('issued', 'paid'))).toBeNull();
    expect(deriveScheduleTrigger('completed', i('overdue'))).toBeNull();
  });
});
