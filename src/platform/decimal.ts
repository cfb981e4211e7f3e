/**
 * Exact decimal arithmetic on strings, the one implementation every feature uses for money and
 * other decimal quantities (docs/platform.md, "Decimals"). A value is a BigInt of units and a scale
 * (digits after the point); it never passes through a JS number. Results are exact unless a function
 * takes a scale and a `Rounding`, which is then the only place digits are dropped.
 *
 * This module imports nothing from the service, so every layer (shared helpers included) may use it.
 */
import cc from 'currency-codes';

/** A parsed decimal: `units / 10^scale`. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/**
 * How digits are dropped: `half-up` rounds a tie away from zero (PostgreSQL's `round()` on NUMERIC),
 * `half-even` to the even digit, `down` toward zero (truncation), `up` away from zero, `floor` and
 * `ceiling` toward -∞ and +∞, `exact` refuses to drop a non-zero digit (throws).
 */
export type Rounding = 'half-up' | 'half-even' | 'down' | 'up' | 'floor' | 'ceiling' | 'exact';

const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

/** A decimal string (`-12.340`, `7`), or null. No exponent, no thousands separators, no bare `.5`. */
export function parseDecimal(s: string): Decimal | null {
  const m = DECIMAL.exec(s);
  if (!m) return null;
  const frac = m[3] ?? '';
  const units = BigInt(m[2]! + frac);
  return { units: m[1] === '-' ? -units : units, scale: frac.length };
}

export const isDecimal = (s: string): boolean => DECIMAL.test(s);

/** Parses or throws: for values the service wrote itself (a column, a validated input). */
export function decimal(s: string | Decimal): Decimal {
  if (typeof s !== 'string') return s;
  const d = parseDecimal(s);
  if (!d) throw new Error(`not a decimal: ${JSON.stringify(s)}`);
  return d;
}

/** The plain string of `units / 10^scale`, with exactly `scale` digits after the point. */
export function fromUnits(units: bigint, scale: number): string {
  const neg = units < 0n;
  const digits = (neg ? -units : units).toString();
  if (scale === 0) return `${neg ? '-' : ''}${digits}`;
  const padded = digits.padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

export const format = (d: Decimal): string => fromUnits(d.units, d.scale);

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** `d` with `scale` digits: padded exactly, or rounded by `rounding`. */
export function rescale(d: Decimal, scale: number, rounding: Rounding): Decimal {
  if (scale >= d.scale) return { units: d.units * pow10(scale - d.scale), scale };
  return { units: divRound(d.units, pow10(d.scale - scale), rounding), scale };
}

/** `a` as a string with `scale` digits: padded, or rounded by `rounding` (`round('2.345', 2, 'half-up')` is `2.35`). */
export const round = (a: string | Decimal, scale: number, rounding: Rounding): string =>
  format(rescale(decimal(a), scale, rounding));

/** n / q (q > 0) rounded to an integer by `rounding`. */
function divRound(n: bigint, q: bigint, rounding: Rounding): bigint {
  const t = n / q; // toward zero
  const r = n - t * q;
  if (r === 0n) return t;
  const sign = n < 0n ? -1n : 1n;
  const twice = (r < 0n ? -r : r) * 2n;
  switch (rounding) {
    case 'exact':
      throw new Error(`rounding needed: ${fromUnits(n, 0)} / ${q}`);
    case 'down':
      return t;
    case 'up':
      return t + sign;
    case 'floor':
      return sign < 0n ? t - 1n : t;
    case 'ceiling':
      return sign > 0n ? t + 1n : t;
    case 'half-up':
      return twice >= q ? t + sign : t;
    case 'half-even':
      return twice > q || (twice === q && t % 2n !== 0n) ? t + sign : t;
  }
}

function aligned(a: string | Decimal, b: string | Decimal): [bigint, bigint, number] {
  const x = decimal(a);
  const y = decimal(b);
  const scale = Math.max(x.scale, y.scale);
  return [x.units * pow10(scale - x.scale), y.units * pow10(scale - y.scale), scale];
}

/** -1, 0 or 1, exactly (`1.50` equals `1.5`). */
export function compare(a: string | Decimal, b: string | Decimal): -1 | 0 | 1 {
  const [x, y] = aligned(a, b);
  return x === y ? 0 : x < y ? -1 : 1;
}

export const isZero = (a: string | Decimal): boolean => decimal(a).units === 0n;

/** a + b, exact; the result has the larger of the two scales. */
export function add(a: string | Decimal, b: string | Decimal): string {
  const [x, y, scale] = aligned(a, b);
  return fromUnits(x + y, scale);
}

/** a − b, exact; the result has the larger of the two scales. */
export function sub(a: string | Decimal, b: string | Decimal): string {
  const [x, y, scale] = aligned(a, b);
  return fromUnits(x - y, scale);
}

/** The sum of `values` at `scale` (each padded; a value with more digits throws). */
export function sum(values: readonly (string | Decimal)[], scale: number): string {
  return fromUnits(
    values.reduce<bigint>((acc, v) => acc + rescale(decimal(v), scale, 'exact').units, 0n),
    scale,
  );
}

/** a × n for an integer n, exact; the scale of `a`. */
export function mulInt(a: string | Decimal, n: number | bigint): string {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new Error(`not an integer: ${n}`);
  const d = decimal(a);
  return fromUnits(d.units * BigInt(n), d.scale);
}

/**
 * a × rate rounded to `scale` digits by `rounding` (a tax, a fee, 90% of a threshold). `divisor`
 * divides the exact product before rounding: a rate in percent is `mulRate(a, '19', 2, 'half-up', 100)`.
 */
export function mulRate(
  a: string | Decimal,
  rate: string | Decimal,
  scale: number,
  rounding: Rounding,
  divisor: number | bigint = 1,
): string {
  const x = decimal(a);
  const r = decimal(rate);
  const q = BigInt(divisor);
  if (q <= 0n) throw new Error(`divisor must be positive: ${divisor}`);
  // (x · r / q) · 10^scale as one fraction, rounded once.
  const productScale = x.scale + r.scale;
  const num = x.units * r.units * pow10(Math.max(0, scale - productScale));
  const den = q * pow10(Math.max(0, productScale - scale));
  return fromUnits(divRound(num, den, rounding), scale);
}

/**
 * `total` split into `count` parts at `scale`: each part is total / count rounded down (toward
 * zero), the remainder added to the first, so the parts always sum to the total.
 */
export function splitEvenly(total: string | Decimal, count: number, scale: number): string[] {
  if (!Number.isSafeInteger(count) || count < 1)
    throw new Error(`count must be a positive integer: ${count}`);
  const units = rescale(decimal(total), scale, 'exact').units;
  const n = BigInt(count);
  const each = units / n;
  const first = units - each * (n - 1n);
  return [first, ...Array.from({ length: count - 1 }, () => each)].map((u) => fromUnits(u, scale));
}

// ---- currencies ----

export function isKnownCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && cc.code(code) !== undefined;
}

/** Minor-unit digits of a currency (ISO 4217: JPY 0, EUR 2, BHD 3); 2 when the catalogue has none. */
export function currencyScale(code: string): number {
  const d = cc.code(code)?.digits;
  return typeof d === 'number' && d >= 0 ? d : 2;
}

/** `amount` at the currency's scale, rounded by `rounding` when it has more digits. */
export function toCurrencyScale(amount: string | Decimal, currency: string, rounding: Rounding): string {
  return format(rescale(decimal(amount), currencyScale(currency), rounding));
}

/** An amount in the currency's minor units (EUR 12.34 → 1234n). */
export function toMinorUnits(amount: string | Decimal, currency: string, rounding: Rounding): bigint {
  return rescale(decimal(amount), currencyScale(currency), rounding).units;
}

export const fromMinorUnits = (minor: bigint, currency: string): string =>
  fromUnits(minor, currencyScale(currency));

/** At least `scale` digits after the point; trailing zeros beyond it dropped, other digits kept. */
export function padScale(amount: string, scale: number): string {
  const [i, f = ''] = amount.split('.');
  const frac = f.replace(/0+$/, '').padEnd(scale, '0');
  return frac ? `${i}.${frac}` : (i ?? amount);
}

// ---- amounts entered by a merchant ----

/** Amounts are positive decimal strings of at most 15 integer digits and 8 decimals. */
const AMOUNT = /^(0|[1-9]\d{0,14})(\.\d{1,8})?$/;

export type AmountProblem = 'format' | 'not_positive' | 'precision';

/**
 * Validates an amount string for a currency and returns its canonical form padded to the
 * currency's minor units ("10.5" EUR -> "10.50"), or the reason it is not acceptable.
 */
export function normalizeAmount(
  amount: string,
  currency: string,
): { ok: true; value: string } | { ok: false; problem: AmountProblem } {
  // "-1" is a decimal, only not a positive one: the same answer as "0".
  if (!AMOUNT.test(amount))
    return { ok: false, problem: AMOUNT.test(amount.replace(/^-/, '')) ? 'not_positive' : 'format' };
  const d = decimal(amount);
  const scale = currencyScale(currency);
  const value = rescale(d, scale, 'down');
  if (compare(value, d) !== 0) return { ok: false, problem: 'precision' };
  if (d.units === 0n) return { ok: false, problem: 'not_positive' };
  return { ok: true, value: format(value) };
}
