/**
 * Which ISO 4217 codes are a currency a bank moves. Derived from the ISO 4217 list that ships with
 * the `currency-codes` package (`iso-4217-list-one.xml`), so a new edition of the list updates it:
 * - codes whose minor unit is "N.A.": precious metals (XAU XAG XPT XPD), the bond-market units
 *   (XBA-XBD), the supranational units of account (XDR, XSU, XUA) and the testing and no-currency
 *   codes (XTS, XXX);
 * - funds codes (`IsFund="true"`: BOV CHE CHW CLF COU MXV USN UYI);
 * - UYW (Uruguay's Unidad Previsional), an index unit the list does not flag as a fund.
 * docs/payments-money.md lists the result; a unit test keeps the two equal.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

/** Units of account the ISO list does not mark (neither N.A. minor unit nor fund). */
const UNFLAGGED_UNITS = ['UYW'];

let cached: ReadonlySet<string> | null = null;

/** The ISO 4217 codes that are not a currency of payment, sorted. */
export function nonPaymentCurrencies(): ReadonlySet<string> {
  if (cached) return cached;
  const file = createRequire(import.meta.url).resolve('currency-codes/iso-4217-list-one.xml');
  const xml = fs.readFileSync(file, 'utf8');
  const codes = new Set<string>(UNFLAGGED_UNITS);
  for (const [, entry = ''] of xml.matchAll(/<CcyNtry>([\s\S]*?)<\/CcyNtry>/g)) {
    const code = /<Ccy>([A-Z]{3})<\/Ccy>/.exec(entry)?.[1];
    if (!code) continue;
    if (/<CcyMnrUnts>N\.A\.<\/CcyMnrUnts>/.test(entry) || /IsFund="true"/.test(entry)) codes.add(code);
  }
  cached = new Set([...codes].sort());
  return cached;
}
