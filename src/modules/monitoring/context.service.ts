/**
 * Turns a submitted transaction into what the engine reads: normalized fields (422 with `loc`),
 * the customer's subject key, the screened parties, and the history/customer lookups.
 */
import { createHash } from 'node:crypto';
import type { DbOrTx } from '../../db/client';
import { isKnownCurrency, normalizeAmount } from '../../platform/decimal';
import { notFound, ValidationError, type ValidationIssue } from '../../shared/errors';
import { M } from '../../shared/messages';
import { findClientBusiness, findClientUser } from '../customers/customers.repo';
import type { CustomerFacts, EvalContext, TxFacts, WalletRisk } from './engine.policy';
import { historyOf } from './monitoring.repo';
import type { TransactionInput } from './monitoring.schemas';
import { isCountryCode } from './rules.policy';
import type { ScreenedParty } from './sanctions.service';

export interface NormalizedTx {
  input: TransactionInput;
  amount: string;
  occurredAt: Date;
  subjectKey: string;
  customerName: string | null;
  customerCountry: string | null;
  customerFacts: CustomerFacts | null;
  searchText: string;
}

/** The same payload always hashes the same (keys sorted); a repeat of client_reference compares it. */
export function payloadHash(body: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v as object)
              .sort()
              .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canon(body)))
    .digest('hex');
}

/** Field checks TypeBox cannot express, then the customer lookup (404 for another client's id). */
export async function normalizeTx(
  db: DbOrTx,
  clientId: string,
  t: TransactionInput,
  now: Date,
  base: (string | number)[],
  clientReference: string | null,
): Promise<NormalizedTx> {
  const issues: ValidationIssue[] = [];
  const push = (loc: (string | number)[], msg: string) =>
    issues.push({ loc: [...base, ...loc], msg, type: 'value_error' });
  let amount = t.amount;
  if (!isKnownCurrency(t.currency)) push(['currency'], 'Must be an ISO 4217 currency code');
  else {
    const n = normalizeAmount(t.amount, t.currency);
    if (!n.ok)
      push(
        ['amount'],
        n.problem === 'not_positive' ? 'Amount must be greater than 0' : 'Invalid amount for the currency',
      );
    else amount = n.value;
  }
  const owners = [t.user_id, t.business_customer_id, t.customer].filter((x) => x !== undefined).length;
  if (owners !== 1) push([], 'Exactly one of user_id, business_customer_id or customer is required');
  for (const [loc, c] of [
    [['counterparty', 'country'], t.counterparty.country],
    [['customer', 'country'], t.customer?.country],
  ] as const)
    if (c !== undefined && !isCountryCode(c)) push([...loc], `Unknown country '${c}'`);
  if (issues.length) throw new ValidationError(issues);

  let subjectKey: string;
  let customerName: string | null = null;
  let customerCountry: string | null = null;
  let customerFacts: CustomerFacts | null = null;
  if (t.user_id) {
    const u = await findClientUser(db, clientId, t.user_id);
    if (!u) throw notFound(M.userNotFound);
    subjectKey = `user:${u.id}`;
    customerName = [u.firstName, u.lastName].filter(Boolean).join(' ') || null;
    customerFacts = { verified: u.kycStatus === 'approved', since: u.createdAt };
  } else if (t.business_customer_id) {
    const b = await findClientBusiness(db, clientId, t.business_customer_id);
    if (!b) throw notFound(M.businessCustomerNotFound);
    subjectKey = `business:${b.id}`;
    customerName = b.companyName;
    customerCountry = b.country;
    customerFacts = { verified: b.kybStatus === 'approved', since: b.createdAt };
  } else {
    subjectKey = `external:${t.customer!.external_id}`;
    customerName = t.customer!.name;
    customerCountry = t.customer!.country ?? null;
  }
  const occurredAt = t.occurred_at ? new Date(t.occurred_at) : now;
  const searchText = [
    clientReference,
    t.counterparty.name,
    t.counterparty.account_identifier,
    t.customer?.external_id,
  ]
    .filter(Boolean)
    .join('\n')
    .toLowerCase();
  return {
    input: t,
    amount,
    occurredAt,
    subjectKey,
    customerName,
    customerCountry,
    customerFacts,
    searchText,
  };
}

export function factsOf(n: NormalizedTx, clientReference: string | null): TxFacts {
  return {
    clientReference,
    amount: n.amount,
    currency: n.input.currency,
    occurredAt: n.occurredAt,
    paymentMethod: n.input.payment_method ?? null,
    counterpartyCountry: n.input.counterparty.country ?? null,
    customerCountry: n.customerCountry,
    hasWallet: !!n.input.counterparty.wallet,
  };
}

/** The parties whose names are screened: the counterparty and the customer. */
export function partiesOf(n: NormalizedTx): ScreenedParty[] {
  const cp = n.input.counterparty;
  const parties: ScreenedParty[] = [
    {
      name: cp.name,
      identifier: cp.account_identifier ?? cp.wallet?.address ?? '',
      type: cp.type,
      country: cp.country ?? null,
    },
  ];
  if (n.customerName)
    parties.push({ name: n.customerName, identifier: n.subjectKey, country: n.customerCountry });
  return parties;
}

/** The counterparty wallet's risk, resolved before evaluation (wallet screening, section 3); null: none. */
export type ResolvedWalletRisk = (WalletRisk & { screeningId?: string }) | null;

export function evalContextOf(
  db: DbOrTx,
  clientId: string,
  n: NormalizedTx,
  excludeId: string | null,
  walletRisk: ResolvedWalletRisk | undefined,
): EvalContext & { walletScreeningId(): string | null } {
  const h = historyOf(db, clientId, n.subjectKey, excludeId);
  let facts: Promise<CustomerFacts> | null = null;
  let screeningId: string | null = null;
  return {
    history: h.aggregate,
    customer() {
      facts ??= n.customerFacts
        ? Promise.resolve(n.customerFacts)
        : h.firstSeen().then((first) => ({ verified: false, since: first ?? n.occurredAt }));
      return facts;
    },
    async walletRisk() {
      if (!n.input.counterparty.wallet || !walletRisk) return null;
      screeningId = walletRisk.screeningId ?? null;
      return walletRisk;
    },
    walletScreeningId: () => screeningId,
  };
}
