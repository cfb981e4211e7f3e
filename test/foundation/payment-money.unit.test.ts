/**
 * The money a payment may be: the ISO 4217 codes that are not a currency of payment (derived from
 * the currency-codes package's ISO list, and equal to the list in docs/payments-money.md), exact
 * decimal comparison against the maximum, and the two configuration variables.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { compare } from '../../src/platform/decimal';
import { nonPaymentCurrencies } from '../../src/shared/currencies';
import { checkPaymentMoney, readPaymentLimits } from '../../src/shared/payment-money';

const DOC = path.resolve(import.meta.dirname, '../../docs/payments-money.md');
const at = { amount: ['body', 'amount'], currency: ['body', 'currency'] };

describe('currencies of payment', () => {
  it('refuses metals, funds, units of account and testing codes, as the docs list them', () => {
    const derived = [...nonPaymentCurrencies()];
    for (const code of ['XAU', 'XAG', 'XPT', 'XPD', 'XTS', 'XXX', 'XDR', 'XSU', 'XUA', 'XBA', 'XBD'])
      expect(derived).toContain(code);
    for (const code of ['BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW'])
      expect(derived).toContain(code);
    for (const code of ['EUR', 'GBP', 'USD', 'JPY', 'CHF', 'XOF', 'XAF', 'XCD', 'XPF'])
      expect(derived).not.toContain(code);
    const doc = fs.readFileSync(DOC, 'utf8');
    const listed = /<!-- non-payment-currencies[^\n]*\n\s*`([A-Z ]+)`/.exec(doc)?.[1]?.split(' ');
    expect(listed).toEqual(derived);
  });
});

describe('exact decimal comparison', () => {
  it('compares digit by digit, beyond what a float holds', () => {
    expect(compare('1000000.01', '1000000.00')).toBe(1);
    expect(compare('1000000', '1000000.00')).toBe(0);
    expect(compare('999999.999', '1000000')).toBe(-1);
    // Equal as floats (2^53 + 1 rounds to 2^53), different as decimals.
    expect(compare('9007199254740993', '9007199254740992')).toBe(1);
    expect(compare('0.10000000000000001', '0.1')).toBe(1);
  });
});

describe('checkPaymentMoney', () => {
  const limits = readPaymentLimits(undefined, undefined, []);
  it('answers each problem at its field', () => {
    expect(checkPaymentMoney(limits, { amount: '1', currency: 'XAU' }, at).issues).toEqual([
      {
        loc: ['body', 'currency'],
        msg: 'XAU is not a currency of payment (precious metals, funds codes, units of account and testing codes are refused)',
        type: 'value_error',
      },
    ]);
    const msg = (amount: string, currency = 'EUR') =>
      checkPaymentMoney(limits, { amount, currency }, at).issues.map((i) => [i.loc.join('.'), i.msg]);
    expect(msg('-1')).toEqual([['body.amount', 'Amount must be greater than 0']]);
    expect(msg('0')).toEqual([['body.amount', 'Amount must be greater than 0']]);
    expect(msg('1000000.01')).toEqual([['body.amount', 'Amount must not exceed 1000000.00 EUR']]);
    expect(msg('1000000000.00')).toEqual([['body.amount', 'Amount must not exceed 1000000.00 EUR']]);
    expect(checkPaymentMoney(limits, { amount: '1000000', currency: 'EUR' }, at)).toEqual({
      amount: '1000000.00',
      issues: [],
    });
  });

  it('follows the deployment: an allow-list and a maximum per currency', () => {
    const narrow = readPaymentLimits('EUR, GBP', '500.00,JPY=100000', []);
    expect(narrow.paymentCurrencies).toEqual(['EUR', 'GBP']);
    const issues = (amount: string, currency: string) =>
      checkPaymentMoney(narrow, { amount, currency }, at).issues.map((i) => i.msg);
    expect(issues('1', 'USD')).toEqual([
      'Currency USD is not accepted for payments here; accepted: EUR, GBP',
    ]);
    expect(issues('500.01', 'GBP')).toEqual(['Amount must not exceed 500.00 GBP']);
    expect(issues('500', 'GBP')).toEqual([]);
    const jpy = readPaymentLimits(undefined, '500.00,JPY=100000', []);
    expect(checkPaymentMoney(jpy, { amount: '100000', currency: 'JPY' }, at).issues).toEqual([]);
    expect(checkPaymentMoney(jpy, { amount: '100001', currency: 'JPY' }, at).issues[0]?.msg).toBe(
      'Amount must not exceed 100000 JPY',
    );
  });
});

describe('configuration', () => {
  it('defaults to every currency of payment and 1000000.00', () => {
    const c = loadConfig({});
    expect(c.paymentCurrencies).toBeNull();
    expect(c.paymentMaxAmount).toEqual({ default: '1000000.00', byCurrency: {} });
  });

  it('refuses at start what is not a currency of payment or not a positive decimal', () => {
    let err: unknown;
    try {
      loadConfig({ SVC_PAYMENT_CURRENCIES: 'EUR,XAU,eur', SVC_PAYMENT_MAX_AMOUNT: '1e6' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect(problems).toContain(
      'SVC_PAYMENT_CURRENCIES must be comma-separated ISO 4217 currencies of payment',
    );
    expect(problems).toContain('refused: XAU, eur');
    expect(problems).toContain('SVC_PAYMENT_MAX_AMOUNT must be a decimal greater than 0');
    for (const bad of ['0', '-5', '100,XAU=5', '100,JPY=0', '100,JPY']) {
      const problems: string[] = [];
      readPaymentLimits(undefined, bad, problems);
      expect(problems, bad).toHaveLength(1);
    }
  });
});
