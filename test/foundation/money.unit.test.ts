import { describe, expect, it } from 'vitest';
import { isKnownCurrency, normalizeAmount } from '../../src/platform/decimal';

describe('money', () => {
  it('normalizes to the currency minor units without floats', () => {
    expect(normalizeAmount('10.5', 'EUR')).toEqual({ ok: true, value: '10.50' });
    expect(normalizeAmount('10', 'GBP')).toEqual({ ok: true, value: '10.00' });
    expect(normalizeAmount('1000', 'JPY')).toEqual({ ok: true, value: '1000' });
    expect(normalizeAmount('1.234', 'BHD')).toEqual({ ok: true, value: '1.234' });
    expect(normalizeAmount('0.10', 'EUR')).toEqual({ ok: true, value: '0.10' });
    expect(normalizeAmount('999999999999999.99', 'EUR')).toEqual({ ok: true, value: '999999999999999.99' });
  });

  it('rejects zero, negatives, bad formats and excess precision', () => {
    expect(normalizeAmount('0', 'EUR')).toEqual({ ok: false, problem: 'not_positive' });
    expect(normalizeAmount('0.00', 'EUR')).toEqual({ ok: false, problem: 'not_positive' });
    expect(normalizeAmount('-1', 'EUR')).toEqual({ ok: false, problem: 'not_positive' });
    expect(normalizeAmount('-0.01', 'EUR')).toEqual({ ok: false, problem: 'not_positive' });
    expect(normalizeAmount('--1', 'EUR')).toEqual({ ok: false, problem: 'format' });
    expect(normalizeAmount('1e3', 'EUR')).toEqual({ ok: false, problem: 'format' });
    expect(normalizeAmount('01.00', 'EUR')).toEqual({ ok: false, problem: 'format' });
    expect(normalizeAmount('1.001', 'EUR')).toEqual({ ok: false, problem: 'precision' });
    expect(normalizeAmount('1.5', 'JPY')).toEqual({ ok: false, problem: 'precision' });
  });

  it('knows ISO 4217 codes', () => {
    expect(isKnownCurrency('EUR')).toBe(true);
    expect(isKnownCurrency('eur')).toBe(false);
    expect(isKnownCurrency('XYZ')).toBe(false);
  });
});
