/**
 * How a payee becomes Token.io's creditor (docs/vendors/tokenio.md, points 7 and 19): GBP by Faster
 * Payments with the sort code and account number of a GB IBAN, EUR by SEPA Instant (else SEPA),
 * other currencies by EU domestic non-euro instant payments; VRP consents are Faster Payments only.
 * A bank whose instruments fit none, or which requires fields we do not send, cannot take the payment.
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

/** A bank's `mandatoryFields` entry (reference `MandatoryFieldsv2`): fields the bank requires, and where. */
export interface MandatoryFieldsEntry {
  products?: string[];
  fieldPaths?: string[];
  paymentTypes?: string[];
  localInstruments?: string[];
}

/** What a Token.io bank says about itself that decides whether it can take a payment of ours. */
export interface BankRails {
  countries?: string[];
  supportedLocalInstruments?: string[];
  mandatoryFields?: MandatoryFieldsEntry[];
}

/** Token.io's product names in `mandatoryFields[].products` (reference example `SIP`): single payments, VRP. */
export type Product = 'SIP' | 'VRP';

/**
 * The local instrument a payment in `currency` goes by at a bank listing `instruments` (its
 * `supportedLocalInstruments`, reference `BankV2`): GBP by FASTER_PAYMENTS; EUR by SEPA_INSTANT, else
 * plain SEPA credit transfer; another currency by EU_DOMESTIC_NON_EURO_INSTANT. Null when the bank
 * lists instruments and none of them fits: the bank cannot take the payment. Without a list (not
 * known), the rail's default.
 */
export function instrumentFor(currency: string, instruments?: readonly string[]): string | null {
  const has = (i: string) => !instruments || instruments.includes(i);
  if (currency === 'GBP') return has('FASTER_PAYMENTS') ? 'FASTER_PAYMENTS' : null;
  if (currency === 'EUR') {
    if (has('SEPA_INSTANT')) return 'SEPA_INSTANT';
    return instruments?.includes('SEPA') ? 'SEPA' : null;
  }
  return has('EU_DOMESTIC_NON_EURO_INSTANT') ? 'EU_DOMESTIC_NON_EURO_INSTANT' : null;
}

/**
 * The initiation fields every payment of ours carries (adapter.ts, mandates.ts): a bank whose
 * `mandatoryFields` names anything else (e.g. `initiation.debtor`, the payer's account or name) needs
 * a detail our checkout does not collect, so it is not offered (docs/vendors/tokenio.md, point 19).
 * A required path is met when we send it or a field inside it (`initiation.creditor` by
 * `initiation.creditor.iban`), or a field it is inside of.
 */
function sentPaths(instrument: string, product: Product): string[] {
  const creditor =
    instrument === 'FASTER_PAYMENTS'
      ? ['initiation.creditor.name', 'initiation.creditor.sortCode', 'initiation.creditor.accountNumber']
      : ['initiation.creditor.name', 'initiation.creditor.iban'];
  const common = [
    'initiation.bankId',
    'initiation.refId',
    'initiation.remittanceInformationPrimary',
    'initiation.onBehalfOfId',
    'initiation.localInstrument',
    'initiation.callbackUrl',
    'initiation.callbackState',
    ...creditor,
  ];
  return product === 'SIP'
    ? [...common, 'initiation.amount.value', 'initiation.amount.currency', 'initiation.flowType']
    : [
        ...common,
        'initiation.currency',
        'initiation.scheme',
        'initiation.maximumIndividualAmount',
        'initiation.periodicLimits',
      ];
}

const norm = (p: string) => p.trim().replace(/^\$\./, '').toLowerCase();

/**
 * The fields this bank requires of a `product` payment by `instrument` that we do not send. An
 * entry applies when its `products` and `localInstruments` are empty or name ours, and its
 * `paymentTypes` are empty or name anything but International (our payments go to a creditor on
 * the payer's own rail: Faster Payments in the UK, SEPA in Europe).
 */
export function unmetMandatoryFields(bank: BankRails, product: Product, instrument: string): string[] {
  const sent = sentPaths(instrument, product).map(norm);
  const unmet = new Set<string>();
  for (const e of bank.mandatoryFields ?? []) {
    const names = (xs?: string[]) => (xs ?? []).map((x) => x.trim().toUpperCase());
    const products = names(e.products);
    const instruments = names(e.localInstruments);
    const types = names(e.paymentTypes);
    if (products.length && !products.includes(product)) continue;
    if (instruments.length && !instruments.includes(instrument)) continue;
    if (types.length && types.every((t) => t === 'INTERNATIONAL')) continue;
    for (const path of e.fieldPaths ?? []) {
      const p = norm(path);
      if (!sent.some((s) => s === p || s.startsWith(`${p}.`) || p.startsWith(`${s}.`))) unmet.add(path);
    }
  }
  return [...unmet];
}

/**
 * The instrument for a `product` payment in `currency` at this bank, or why it cannot take it (a
 * sentence for logs and the merchant; the payer is told to choose another bank).
 */
export function railAt(
  bank: BankRails | undefined,
  currency: string,
  product: Product = 'SIP',
): { instrument: string } | { problem: string } {
  const instrument = instrumentFor(currency, bank?.supportedLocalInstruments ?? undefined);
  if (!instrument) return { problem: `The bank cannot take ${currency} payments (no suitable payment rail)` };
  const unmet = bank ? unmetMandatoryFields(bank, product, instrument) : [];
  if (unmet.length)
    return {
      problem: `The bank requires details this checkout does not collect (${unmet.slice(0, 5).join(', ')})`,
    };
  return { instrument };
}

/**
 * The payee as Token.io's creditor for a payment in `currency` by `instrument` (see `railAt`;
 * default: the rail's default instrument). GBP needs a UK account (sort code and account number of
 * a GB IBAN); other currencies go to the IBAN.
 */
export function creditorFor(
  payee: Payee,
  currency: string,
  instrument: string | null = instrumentFor(currency),
): { localInstrument: string; creditor: Record<string, unknown> } {
  const iban = electronicFormatIBAN(payee.iban) ?? payee.iban;
  if (!instrument) throw new BankRefusedError(`The bank cannot take ${currency} payments`);
  if (currency === 'GBP') {
    const uk = ukAccount(iban);
    if (!uk) throw new BankRefusedError('GBP payments need the opco to settle to a UK account (a GB IBAN)');
    return { localInstrument: instrument, creditor: { name: creditorName(payee), ...uk } };
  }
  const account = { name: creditorName(payee), iban, ...(payee.bic ? { bic: payee.bic } : {}) };
  return { localInstrument: instrument, creditor: account };
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
 * The currencies a Token.io bank can take a `product` payment of ours in: those for which `railAt`
 * finds an instrument among the bank's `supportedLocalInstruments` (GBP: FASTER_PAYMENTS; EUR:
 * SEPA_INSTANT or SEPA; a non-euro EU currency: EU_DOMESTIC_NON_EURO_INSTANT in a country of that
 * currency) and the bank requires no field we do not send (`mandatoryFields`). Token.io's BankV2 has
 * `countries[]` and `supportedLocalInstruments[]` but no currency field; the rails and their areas:
 * https://docs.token.io/products/tpp/integration-considerations/payment-rails (FPS: UK; SEPA and
 * SEPA Instant: Europe; EU Domestic Non Euro (Instant): EU domestic payment systems). Undefined when
 * the bank lists no instruments (nothing to go by: any currency). VRP is GBP by Faster Payments only.
 */
export function currenciesOf(bank: BankRails, product: Product = 'SIP') {
  const instruments = bank.supportedLocalInstruments;
  if (!instruments) return undefined;
  const candidates = new Set<string>(['GBP']);
  if (product === 'SIP') {
    candidates.add('EUR');
    if (instruments.includes('EU_DOMESTIC_NON_EURO_INSTANT'))
      for (const c of bank.countries ?? []) if (NON_EURO_EU[c]) candidates.add(NON_EURO_EU[c]);
  }
  return [...candidates].filter((c) => 'instrument' in railAt(bank, c, product));
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
