/**
 * How a payee becomes Token.io's creditor (docs/vendors/tokenio.md, point 7): GBP by Faster
 * Payments with the sort code and account number of a GB IBAN, EUR by SEPA Instant, other
 * currencies by EU domestic non-euro instant payments; VRP consents are Faster Payments only.
 */
import { electronicFormatIBAN } from 'ibantools';
import { mulInt } from '../../../platform/decimal';
import { BankRefusedError, type Payee } from '../port';

/** A GB IBAN is GBkk BBBB SSSSSS AAAAAAAA: bank code, sort code, account number. */
function ukAccount(iban: string): { sortCode: string; accountNumber: string } | null {
  const m = /^GB\d{2}[A-Z]{4}(\d{6})(\d{8})$/.exec(electronicFormatIBAN(iban) ?? iban);
  return m ? { sortCode: m[1]!, accountNumber: m[2]! } : null;
}

function creditorName(payee: Payee): string {
  return payee.name.slice(0, 140);
}

/**
 * `instruments`: the chosen bank's `supportedLocalInstruments` (reference `BankV2`), when known. EUR
 * goes by SEPA Instant, or by plain SEPA credit transfer at a bank that lists SEPA but not SEPA Instant.
 */
export function creditorFor(
  payee: Payee,
  currency: string,
  instruments?: readonly string[],
): { localInstrument: string; creditor: Record<string, unknown> } {
  const iban = electronicFormatIBAN(payee.iban) ?? payee.iban;
  if (currency === 'GBP') {
    const uk = ukAccount(iban);
    if (!uk) throw new BankRefusedError('GBP payments need the opco to settle to a UK account (a GB IBAN)');
    return { localInstrument: 'FASTER_PAYMENTS', creditor: { name: creditorName(payee), ...uk } };
  }
  const account = { name: creditorName(payee), iban, ...(payee.bic ? { bic: payee.bic } : {}) };
  if (currency === 'EUR') {
    const sepaOnly = !!instruments && !instruments.includes('SEPA_INSTANT') && instruments.includes('SEPA');
    return { localInstrument: sepaOnly ? 'SEPA' : 'SEPA_INSTANT', creditor: account };
  }
  return { localInstrument: 'EU_DOMESTIC_NON_EURO_INSTANT', creditor: account };
}

/** EU countries outside the euro area and their currencies (the national currency a domestic rail carries). */
const NON_EURO_EU: Readonly<Record<string, string>> = {
  CZ: 'CZK',
  DK: 'DKK',
  HU: 'HUF',
  PL: 'PLN',
  RO: 'RON',
  SE: 'SEK',
};

/**
 * The currencies a Token.io bank can take a payment of ours in: those whose rail, as `creditorFor`
 * picks it, is among the bank's `supportedLocalInstruments` (GBP: FASTER_PAYMENTS; EUR: SEPA_INSTANT;
 * a non-euro EU currency: EU_DOMESTIC_NON_EURO_INSTANT in a country of that currency). Token.io's
 * BankV2 has `countries[]` and `supportedLocalInstruments[]` but no currency field; the rails and their
 * areas: https://docs.token.io/products/tpp/integration-considerations/payment-rails (FPS: UK; SEPA
 * and SEPA Instant: Europe; EU Domestic Non Euro (Instant): EU domestic payment systems).
 * Undefined when the bank lists no instruments (nothing to go by: any currency).
 */
export function currenciesOf(bank: { countries?: string[]; supportedLocalInstruments?: string[] }) {
  const instruments = bank.supportedLocalInstruments;
  if (!instruments) return undefined;
  const out = new Set<string>();
  if (instruments.includes('FASTER_PAYMENTS')) out.add('GBP');
  if (instruments.includes('SEPA_INSTANT')) out.add('EUR');
  if (instruments.includes('EU_DOMESTIC_NON_EURO_INSTANT'))
    for (const c of bank.countries ?? []) if (NON_EURO_EU[c]) out.add(NON_EURO_EU[c]);
  return [...out];
}

export function vrpCreditorFor(payee: Payee, currency: string): Record<string, unknown> {
  const uk = currency === 'GBP' ? ukAccount(payee.iban) : null;
  if (!uk)
    throw new BankRefusedError('Recurring payments by bank need GBP and an opco settling to a UK account');
  return { name: creditorName(payee), ...uk };
}

/**
 * Our mandate periods as Token.io periodic limits that never refuse a payment our own limits allow
 * (the service still enforces its own): a fortnight's limit holds for each week inside it, and two
 * half-years make a year.
 */
export function periodicLimitFor(
  period: string,
  amount: string,
): { maximumAmount: string; periodType: string } {
  switch (period) {
    case 'day':
      return { maximumAmount: amount, periodType: 'DAY' };
    case 'week':
    case 'fortnight':
      return { maximumAmount: amount, periodType: 'WEEK' };
    case 'month':
      return { maximumAmount: amount, periodType: 'MONTH' };
    case 'half_year':
      return { maximumAmount: mulInt(amount, 2), periodType: 'YEAR' };
    default:
      return { maximumAmount: amount, periodType: 'YEAR' };
  }
}
