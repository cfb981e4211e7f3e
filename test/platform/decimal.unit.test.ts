/** The decimal module: exact on strings, rounding only where asked, scaled by ISO 4217 minor units. */
import { describe, expect, it } from 'vitest';
import {
  add,
  compare,
  currencyScale,
  fromMinorUnits,
  fromUnits,
  isDecimal,
  isZero,
  mulInt,
  mulRate,
  normalizeAmount,
  padScale,
  parseDecimal,
  type Rounding,
  round,
  splitEvenly,
  sub,
  sum,
  toCurrencyScale,
  toMinorUnits,
} from '../../src/platform/decimal';

describe('parsing and formatting', () => {
  it('parses plain decimal strings only', () => {
    expect(parseDecimal('12.340')).toEqual({ units: 12340n, scale: 3 });
    expect(parseDecimal('-0.5')).toEqual({ units: -5n, scale: 1 });
    expect(parseDecimal('+7')).toEqual({ units: 7n, scale: 0 });
    for (const bad of ['', '.5', '5.', '1e3', '1,000.00', '--1', ' 1', 'NaN', '0x10'])
      expect(isDecimal(bad), bad).toBe(false);
  });

  it('formats with the scale it was given, sign included', () => {
    expect(fromUnits(5n, 2)).toBe('0.05');
    expect(fromUnits(-5n, 2)).toBe('-0.05');
    expect(fromUnits(-1234n, 0)).toBe('-1234');
    expect(fromUnits(0n, 3)).toBe('0.000');
  });
});

describe('exact arithmetic', () => {
  it('adds, subtracts and compares across scales, negatives included', () => {
    expect(add('0.1', '0.2')).toBe('0.3');
    expect(add('1.5', '2.25')).toBe('3.75');
    expect(sub('1.00', '2.5')).toBe('-1.50');
    expect(add('-0.05', '0.05')).toBe('0.00');
    expect(compare('1.50', '1.5')).toBe(0);
    expect(compare('-2', '-10')).toBe(1);
    expect(compare('0.000000000000000001', '0')).toBe(1);
    expect(isZero('-0.000')).toBe(true);
  });

  it('keeps every digit of large values (beyond a double)', () => {
    const big = '999999999999999999999999.99';
    expect(add(big, '0.01')).toBe('1000000000000000000000000.00');
    expect(mulInt('12345678901234567.89', 3)).toBe('37037036703703703.67');
    expect(sum(['0.10', '0.20', '0.30'], 2)).toBe('0.60');
    expect(sum([], 2)).toBe('0.00');
    expect(() => sum(['0.005'], 2)).toThrow();
  });

  it('multiplies by a rate and rounds once, by the rule it is given', () => {
    expect(mulRate('10.05', '19', 2, 'half-up', 100)).toBe('1.91'); // 1.9095
    expect(mulRate('0.05', '50', 2, 'half-up', 100)).toBe('0.03'); // 0.025, a tie
    expect(mulRate('0.05', '50', 2, 'half-even', 100)).toBe('0.02');
    expect(mulRate('-0.05', '50', 2, 'half-up', 100)).toBe('-0.03');
    expect(mulRate('1000', '0.9', 18, 'down')).toBe('900.000000000000000000');
    expect(mulRate('10', '1', 2, 'down', 3)).toBe('3.33');
    expect(mulRate('10', '1', 2, 'up', 3)).toBe('3.34');
  });

  it('rounds by every rule, positive and negative', () => {
    const cases: [string, Rounding, string, string][] = [
      ['2.345', 'half-up', '2.35', '-2.35'],
      ['2.345', 'half-even', '2.34', '-2.34'],
      ['2.355', 'half-even', '2.36', '-2.36'],
      ['2.341', 'down', '2.34', '-2.34'],
      ['2.341', 'up', '2.35', '-2.35'],
      ['2.341', 'floor', '2.34', '-2.35'],
      ['2.341', 'ceiling', '2.35', '-2.34'],
      ['2.344', 'half-up', '2.34', '-2.34'],
    ];
    for (const [v, rule, pos, neg] of cases) {
      expect(round(v, 2, rule), `${v} ${rule}`).toBe(pos);
      expect(round(`-${v}`, 2, rule), `-${v} ${rule}`).toBe(neg);
    }
    expect(round('2.5', 2, 'exact')).toBe('2.50');
    expect(round('2.500', 2, 'exact')).toBe('2.50');
    expect(() => round('2.501', 2, 'exact')).toThrow();
  });
});

describe('currency scales (ISO 4217)', () => {
  it('uses the minor units of 0, 2 and 3 digit currencies', () => {
    expect([currencyScale('JPY'), currencyScale('EUR'), currencyScale('BHD')]).toEqual([0, 2, 3]);
    expect(toCurrencyScale('1000.5', 'JPY', 'half-up')).toBe('1001');
    expect(toCurrencyScale('10.5', 'EUR', 'exact')).toBe('10.50');
    expect(toCurrencyScale('1.2345', 'BHD', 'half-even')).toBe('1.234');
    expect(toMinorUnits('12.34', 'EUR', 'exact')).toBe(1234n);
    expect(toMinorUnits('12', 'JPY', 'exact')).toBe(12n);
    expect(toMinorUnits('-1.5', 'BHD', 'exact')).toBe(-1500n);
    expect(fromMinorUnits(1234n, 'EUR')).toBe('12.34');
    expect(fromMinorUnits(7n, 'BHD')).toBe('0.007');
    expect(fromMinorUnits(7n, 'JPY')).toBe('7');
  });

  it('validates an amount against its currency', () => {
    expect(normalizeAmount('10.5', 'EUR')).toEqual({ ok: true, value: '10.50' });
    expect(normalizeAmount('10.500', 'EUR')).toEqual({ ok: true, value: '10.50' });
    expect(normalizeAmount('10.5', 'JPY')).toEqual({ ok: false, problem: 'precision' });
    expect(normalizeAmount('1.0001', 'BHD')).toEqual({ ok: false, problem: 'precision' });
    expect(normalizeAmount('0.000', 'EUR')).toEqual({ ok: false, problem: 'not_positive' });
  });

  it('pads to a scale without dropping digits', () => {
    expect(padScale('12.500000000000000000', 2)).toBe('12.50');
    expect(padScale('12.345000', 2)).toBe('12.345');
    expect(padScale('1000.000', 0)).toBe('1000');
  });
});

describe('splitting', () => {
  it('splits into equal parts rounded down, the remainder on the first, summing to the total', () => {
    expect(splitEvenly('100.00', 3, 2)).toEqual(['33.34', '33.33', '33.33']);
    expect(splitEvenly('1000', 7, 0)).toEqual(['148', '142', '142', '142', '142', '142', '142']);
    expect(splitEvenly('0.010', 4, 3)).toEqual(['0.004', '0.002', '0.002', '0.002']);
    expect(splitEvenly('5.00', 1, 2)).toEqual(['5.00']);
    for (const [total, n] of [
      ['999999999999.99', 60],
      ['0.07', 2],
      ['12345.67', 11],
    ] as const)
      expect(sum(splitEvenly(total, n, 2), 2)).toBe(total);
    expect(() => splitEvenly('1', 0, 2)).toThrow();
  });
});
