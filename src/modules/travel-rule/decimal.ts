/** Compares two non-negative decimal strings without floats: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const ia = ai.replace(/^0+(?=\d)/, '');
  const ib = bi.replace(/^0+(?=\d)/, '');
  if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
  const len = Math.max(af.length, bf.length);
  const x = ia + af.padEnd(len, '0');
  const y = ib + bf.padEnd(len, '0');
  return x === y ? 0 : x < y ? -1 : 1;
}
