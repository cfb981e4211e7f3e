/**
 * Display helpers without React, so they are unit-tested in Node and exercised in Chromium.
 * Amounts are decimal strings from the API and stay strings: Intl.NumberFormat formats a numeric
 * string exactly (ECMA-402's decimal strings, Chromium 106+ and Node 20), where `Number(amount)` would
 * round past about 15 significant digits.
 */

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** `€1,234.50`: the amount's own digits, never rounded (at least the currency's minor units). */
export function formatMoney(amount: string, currency: string, locale = 'en-GB'): string {
  if (!DECIMAL.test(amount)) return `${amount} ${currency}`;
  try {
    const base = new Intl.NumberFormat(locale, { style: 'currency', currency });
    const minor = base.resolvedOptions().maximumFractionDigits ?? 2;
    const own = amount.split('.')[1]?.length ?? 0;
    const exact = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      maximumFractionDigits: Math.max(minor, own),
    });
    // The string overload (ES2023 Intl.NumberFormat v3) keeps every digit.
    return exact.format(amount as `${number}`);
  } catch {
    return `${amount} ${currency}`;
  }
}

/**
 * A short id for lists and titles: the end of the id. Our ids are UUIDv7, which start with their
 * creation time, so the first characters are the same for everything created in the same minute;
 * the last ones are random.
 */
export function shortId(id: string): string {
  return `…${id.replace(/-/g, '').slice(-8)}`;
}

/** A payment's link text in lists: its description, else the end of its id. */
export function paymentLabel(t: { transaction_id: string; description?: string | null }): string {
  return t.description?.trim() || `Payment ${shortId(t.transaction_id)}`;
}
