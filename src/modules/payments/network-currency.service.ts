/**
 * Can the payment network settle a payment in this currency to this payee? Asked when a payment link
 * is created, so a currency no bank can take (a USD link on a network of GBP and EUR banks) or one the
 * opco has no account for (GBP to an opco without a UK account) is a 422 at `currency` then, not a
 * dead end for the payer at bank choice. The checkout offers only the banks that take the currency.
 */
import type { Deps } from '../../deps';
import { type BankChoice, BankProviderError, bankTakes, type Payee } from '../../providers/bank/port';
import type { PaylinkFacts } from './paylink.statements';

export const NetworkCurrencyMessages = {
  noBank: (currency: string, taken: readonly string[]) =>
    taken.length > 0
      ? `No bank on the payment network takes ${currency} payments (its banks take ${taken.join(', ')})`
      : `No bank on the payment network takes ${currency} payments`,
} as const;

/** The currencies some bank takes, or null when one of them takes any currency. */
export function currenciesTaken(banks: readonly BankChoice[]): string[] | null {
  const out = new Set<string>();
  for (const b of banks) {
    if (!b.currencies) return null;
    for (const c of b.currencies) out.add(c);
  }
  return [...out].sort();
}

function payeeOf(f: PaylinkFacts): Payee | null {
  if (!f.settlement_iban) return null;
  return { name: f.payee_name ?? '', iban: f.settlement_iban, bic: f.settlement_bic, subTppId: f.sub_tpp_id };
}

/**
 * Why the network cannot take a payment in `currency` for this payment link's payee, or null. A bank
 * list that cannot be read now does not block the link (the checkout answers 503 until it can).
 */
export async function networkCurrencyProblem(
  deps: Deps,
  currency: string,
  facts: PaylinkFacts,
): Promise<string | null> {
  const bank = deps.providers.bank;
  try {
    const banks = await bank.listBanks({ purpose: 'payment' });
    if (!banks.some((b) => bankTakes(b, currency)))
      return NetworkCurrencyMessages.noBank(currency, currenciesTaken(banks) ?? []);
  } catch (err) {
    if (!(err instanceof BankProviderError)) throw err;
    deps.log.warn({ err }, 'bank list unavailable; currency not checked against the banks');
  }
  const payee = payeeOf(facts);
  return payee && bank.payeeCurrencyProblem ? bank.payeeCurrencyProblem(payee, currency) : null;
}
