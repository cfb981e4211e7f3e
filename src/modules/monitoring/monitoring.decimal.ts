/** Exact decimal comparisons for money strings (never floats): values scaled to 18 decimals as BigInt. */
const SCALE = 18;

export function toScaled(v: string): bigint {
  const neg = v.startsWith('-');
  const [i = '0', f = ''] = (neg ? v.slice(1) : v).split('.');
  const n = BigInt(i + f.padEnd(SCALE, '0').slice(0, SCALE));
  return neg ? -n : n;
}

export const gt = (a: string, b: string) => toScaled(a) > toScaled(b);

/** 90% of `threshold` as a decimal string (exact). */
export function ninetyPercent(threshold: string): string {
  const s = (toScaled(threshold) * 9n) / 10n;
  const str = s.toString().padStart(SCALE + 1, '0');
  return `${str.slice(0, -SCALE)}.${str.slice(-SCALE)}`;
}

/** a + b, exact, as a plain decimal string. */
export function add(a: string, b: string): string {
  const s = toScaled(a) + toScaled(b);
  const str = s.toString().padStart(SCALE + 1, '0');
  return `${str.slice(0, -SCALE)}.${str.slice(-SCALE)}`.replace(/\.?0+$/, '') || '0';
}
