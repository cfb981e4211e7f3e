/**
 * What money a payment may be, wherever a payment's amount and currency enter (payment links, bulk
 * rows, schedules and their instalments, recurring payments and their charges, contract payments):
 * a currency of payment (ISO 4217, not a metal, fund, unit of account or testing code), allowed by
 * the deployment (`SVC_PAYMENT_CURRENCIES`), and an amount greater than 0, within the currency's
 * minor units and at most the deployment's maximum (`SVC_PAYMENT_MAX_AMOUNT`), compared exactly as
 * decimals. See docs/payments-money.md.
 */

import { compare, isKnownCurrency, normalizeAmount } from '../platform/decimal';
import { nonPaymentCurrencies } from './currencies';
import type { ValidationIssue } from './errors';

export interface PaymentLimits {
  /** Allow-list of currencies (`SVC_PAYMENT_CURRENCIES`); null = every currency of payment. */
  paymentCurrencies: readonly string[] | null;
  /** Largest amount of one payment (`SVC_PAYMENT_MAX_AMOUNT`): a default, and per currency. */
  paymentMaxAmount: { default: string; byCurrency: Readonly<Record<string, string>> };
}

export const DEFAULT_PAYMENT_MAX_AMOUNT = '1000000.00';

const MAX_DECIMAL = /^(0|[1-9]\d{0,14})(\.\d{1,8})?$/;

export const MoneyMessages = {
  currencyFormat: 'Currency must be an upper-case ISO 4217 code such as EUR',
  amountFormat: 'Amount must be a decimal string such as "125.50"',
  amountPrecision: 'Amount has more decimal places than the currency allows',
  amountNotPositive: 'Amount must be greater than 0',
  notPaymentCurrency: (code: string) =>
    `${code} is not a currency of payment (precious metals, funds codes, units of account and testing codes are refused)`,
  currencyNotAccepted: (code: string, accepted: readonly string[]) =>
    `Currency ${code} is not accepted for payments here; accepted: ${accepted.join(', ')}`,
  amountAboveMax: (max: string, currency: string) => `Amount must not exceed ${max} ${currency}`,
} as const;

export function isPaymentCurrency(code: string): boolean {
  return isKnownCurrency(code) && !nonPaymentCurrencies().has(code);
}

/** The maximum of one payment in `currency`. */
export function maxPaymentAmount(limits: PaymentLimits, currency: string): string {
  return limits.paymentMaxAmount.byCurrency[currency] ?? limits.paymentMaxAmount.default;
}

/** Why `currency` cannot be a payment's currency under `limits`, or null. */
export function paymentCurrencyProblem(limits: PaymentLimits, currency: string): string | null {
  if (!isKnownCurrency(currency)) return MoneyMessages.currencyFormat;
  if (nonPaymentCurrencies().has(currency)) return MoneyMessages.notPaymentCurrency(currency);
  const allowed = limits.paymentCurrencies;
  if (allowed && !allowed.includes(currency)) return MoneyMessages.currencyNotAccepted(currency, allowed);
  return null;
}

export interface PaymentMoneyCheck {
  /** The canonical amount (padded to the currency's minor units), or null when refused or not given. */
  amount: string | null;
  issues: ValidationIssue[];
}

/**
 * The one check of a payment's money: the currency (at `loc.currency`) and, when given, the amount
 * (at `loc.amount`). An amount is checked against the currency's minor units only once the
 * currency is acceptable (EUR's otherwise).
 */
export function checkPaymentMoney(
  limits: PaymentLimits,
  input: { amount?: string; currency: string },
  loc: { amount: (string | number)[]; currency: (string | number)[] },
  /** false for a sum of several payments (a schedule's total): its parts are checked against the maximum. */
  maximum = true,
): PaymentMoneyCheck {
  const issues: ValidationIssue[] = [];
  const currencyProblem = paymentCurrencyProblem(limits, input.currency);
  if (currencyProblem) issues.push({ loc: loc.currency, msg: currencyProblem, type: 'value_error' });
  if (input.amount === undefined) return { amount: null, issues };
  const amountIssue = paymentAmountProblem(
    limits,
    input.amount,
    currencyProblem ? null : input.currency,
    maximum,
  );
  if (typeof amountIssue === 'string') {
    issues.push({ loc: loc.amount, msg: amountIssue, type: 'value_error' });
    return { amount: null, issues };
  }
  return { amount: amountIssue.value, issues };
}

/**
 * An amount of a payment in `currency` (null: a refused currency, checked as EUR without a maximum):
 * its canonical form, or the message saying why not.
 */
export function paymentAmountProblem(
  limits: PaymentLimits,
  amount: string,
  currency: string | null,
  maximum = true,
): { value: string } | string {
  const n = normalizeAmount(amount, currency ?? 'EUR');
  if (!n.ok)
    return n.problem === 'format'
      ? MoneyMessages.amountFormat
      : n.problem === 'precision'
        ? MoneyMessages.amountPrecision
        : MoneyMessages.amountNotPositive;
  if (currency && maximum) {
    const max = maxPaymentAmount(limits, currency);
    if (compare(n.value, max) > 0) return MoneyMessages.amountAboveMax(max, currency);
  }
  return { value: n.value };
}

/**
 * Reads `SVC_PAYMENT_CURRENCIES` (comma-separated codes, each a currency of payment) and
 * `SVC_PAYMENT_MAX_AMOUNT` (a decimal, then optional `CODE=decimal` overrides: `1000000.00,JPY=150000000`).
 * Problems are appended to `problems` in the configuration's wording.
 */
export function readPaymentLimits(
  currencies: string | undefined,
  maxAmount: string | undefined,
  problems: string[],
): PaymentLimits {
  let allowList: string[] | null = null;
  if (currencies !== undefined) {
    const codes = [...new Set(currencies.split(',').map((c) => c.trim()))].filter(Boolean);
    const bad = codes.filter((c) => !isPaymentCurrency(c));
    if (codes.length === 0 || bad.length > 0)
      problems.push(
        `SVC_PAYMENT_CURRENCIES must be comma-separated ISO 4217 currencies of payment such as EUR,GBP (refused: ${bad.join(', ') || 'empty list'})`,
      );
    else allowList = codes;
  }
  const limits = { default: DEFAULT_PAYMENT_MAX_AMOUNT, byCurrency: {} as Record<string, string> };
  if (maxAmount !== undefined) {
    const [first = '', ...overrides] = maxAmount.split(',').map((p) => p.trim());
    const fail = () =>
      problems.push(
        `SVC_PAYMENT_MAX_AMOUNT must be a decimal greater than 0 such as 1000000.00, optionally followed by per-currency values such as ,JPY=150000000 (got "${maxAmount}")`,
      );
    if (!positiveDecimal(first)) fail();
    else limits.default = first;
    for (const o of overrides) {
      const m = /^([A-Z]{3})=(.+)$/.exec(o);
      if (!m || !isPaymentCurrency(m[1]!) || !positiveDecimal(m[2]!)) fail();
      else limits.byCurrency[m[1]!] = m[2]!;
    }
  }
  return { paymentCurrencies: allowList, paymentMaxAmount: limits };
}

function positiveDecimal(v: string): boolean {
  return MAX_DECIMAL.test(v) && compare(v, '0') > 0;
}
