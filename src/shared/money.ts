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
  if (!m) return { ok: false, problem: 'format' };
  const intPart = m[1]!;
  let frac = (m[2] ?? '').slice(1);
  const digits = currencyDigits(currency);
  const trimmed = frac.replace(/0+$/, '');
  if (trimmed.length > digits) return { ok: false, problem: 'precision' };
  frac = trimmed.padEnd(digits, '0');
  if (/^0*$/.test(intPart + frac)) return { ok: false, problem: 'not_positive' };
  return { ok: true, value: digits > 0 ? `${intPart}.${frac}` : intPart };
}
