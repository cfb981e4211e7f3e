import cc from 'currency-codes';

/** Amounts are decimal strings end to end: never parsed into a float. */
const DECIMAL = /^(0|[1-9]\d{0,14})(\.\d{1,8})?$/;

export function isKnownCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && cc.code(code) !== undefined;
}

/** Minor-unit digits of a currency (JPY 0, EUR 2, BHD 3); 2 when the catalogue has none. */
export function currencyDigits(code: string): number {
  const d = cc.code(code)?.digits;
  return typeof d === 'number' && d >= 0 ? d : 2;
}

export type AmountProblem = 'format' | 'not_positive' | 'precision';

/**
 * Validates an amount string for a currency and returns its canonical form padded to the
 * currency's minor units ("10.5" EUR -> "10.50"), or the reason it is not acceptable.
 */
export function normalizeAmount(
  amount: string,
  currency: string,
): { ok: true; value: string } | { ok: false; problem: AmountProblem } {
  const m = DECIMAL.exec(amount);
  // "-1" is a decimal, only not a positive one: the same answer as "0".
  if (!m) return { ok: false, problem: DECIMAL.test(amount.replace(/^-/, '')) ? 'not_positive' : 'format' };
  const intPart = m[1]!;
  let frac = (m[2] ?? '').slice(1);
  const digits = currencyDigits(currency);
  const trimmed = frac.replace(/0+$/, '');
  if (trimmed.length > digits) return { ok: false, problem: 'precision' };
  frac = trimmed.padEnd(digits, '0');
  if (/^0*$/.test(intPart + frac)) return { ok: false, problem: 'not_positive' };
  return { ok: true, value: digits > 0 ? `${intPart}.${frac}` : intPart };
}

/** Compares two non-negative decimal strings exactly (digit by digit, never as floats): -1, 0 or 1. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const x = ai.replace(/^0+(?=\d)/, '');
  const y = bi.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const l = `${x}${af.padEnd(width, '0')}`;
  const r = `${y}${bf.padEnd(width, '0')}`;
  return l === r ? 0 : l < r ? -1 : 1;
}
