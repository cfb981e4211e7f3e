/**
 * Usage: the client's billable records in a period × the price list (docs/guides/invoices.md).
 * Each billable kind is a usage source counting records of one area: successful payments, decided
 * KYC and KYB verifications, and completed wallet screenings (the query is screening's own,
 * usage.service.ts). Travel-rule transfers and contract requests have no source yet and bill 0.
 * A period is whole UTC days: period_start 00:00 to the end of period_end.
 */
import { sql } from 'drizzle-orm';
import type { Environment } from '../../config';
import { type DbOrTx, rowsOf } from '../../db/client';
import {
  addDays,
  isoDate,
  lastDateOfMonth,
  monthsBetween,
  startOfDay,
  startOfMonth,
} from '../../platform/calendar';
import { sum } from '../../platform/decimal';
import { badRequest } from '../../shared/errors';
import { countCompletedScreenings } from '../screening/usage.service';
import { BillingMessages } from './billing.messages';
import { findPriceList, lineAmount, type PriceListRow } from './billing.repo';
import type { LineCategory, PriceKey } from './billing.schemas';

export type UsageCategory = Exclude<LineCategory, 'platform_fee' | 'other'>;

export interface UsageSource {
  /** The price-list entry that prices one record. */
  priceKey: PriceKey;
  description: string;
  /** Records of `clientId` in [from, to). */
  count(db: DbOrTx, clientId: string, from: Date, to: Date): Promise<number>;
}

async function countOf(db: DbOrTx, query: ReturnType<typeof sql>): Promise<number> {
  return Number(rowsOf<{ n: number | string }>(await db.execute(query))[0]?.n ?? 0);
}

function verificationSource(kind: 'kyc' | 'kyb'): UsageSource {
  return {
    priceKey: `${kind}_verification`,
    description: kind === 'kyc' ? 'KYC verifications' : 'KYB verifications',
    count: (db, clientId, from, to) =>
      countOf(
        db,
        sql`select count(*)::int as n from verification_records
             where client_id = ${clientId}::uuid and kind = ${kind} and decision_at is not null
               and decision_at >= ${from.toISOString()}::timestamptz and decision_at < ${to.toISOString()}::timestamptz`,
      ),
  };
}

const SOURCES: Partial<Record<UsageCategory, UsageSource>> = {
  transaction_fee: {
    priceKey: 'transaction_success',
    description: 'Successful payments',
    // The platform's own invoice collections are not usage of the collecting client.
    count: (db, clientId, from, to) =>
      countOf(
        db,
        sql`select count(*)::int as n from transactions
             where client_id = ${clientId}::uuid and status = 'success' and origin_type <> 'invoice'
               and completed_at >= ${from.toISOString()}::timestamptz and completed_at < ${to.toISOString()}::timestamptz`,
      ),
  },
  kyc_verification: verificationSource('kyc'),
  kyb_verification: verificationSource('kyb'),
  wallet_screening: {
    priceKey: 'wallet_screening',
    description: 'Wallet screenings',
    count: countCompletedScreenings,
  },
};

/** Order of the usage lines (the price list's order). */
const USAGE_ORDER: UsageCategory[] = [
  'transaction_fee',
  'kyc_verification',
  'kyb_verification',
  'wallet_screening',
  'travel_rule_transfer',
  'contract_request',
];

const PRICE_COLUMN: Record<PriceKey, keyof PriceListRow> = {
  platform_fee_monthly: 'platformFeeMonthly',
  transaction_success: 'transactionSuccess',
  kyc_verification: 'kycVerification',
  kyb_verification: 'kybVerification',
  wallet_screening: 'walletScreening',
  travel_rule_transfer: 'travelRuleTransfer',
  contract_request: 'contractRequest',
};

export const priceOf = (p: PriceListRow, key: PriceKey) => String(p[PRICE_COLUMN[key]]);

export interface UsageLine {
  description: string;
  category: LineCategory;
  quantity: number;
  unit_amount: string;
}

/** Calendar months the period touches: the platform fee is charged once per month. */
export function monthsTouched(periodStart: string, periodEnd: string): number {
  return Math.max(1, monthsBetween(startOfDay(periodStart), startOfDay(periodEnd)) + 1);
}

/** The usage lines of a period (quantity 0 included) from the client's price list. */
export async function usageLines(
  db: DbOrTx,
  clientId: string,
  prices: PriceListRow,
  periodStart: string,
  periodEnd: string,
): Promise<UsageLine[]> {
  const from = startOfDay(periodStart);
  const to = startOfDay(addDays(periodEnd, 1));
  const lines: UsageLine[] = [
    {
      description: `Platform fee ${periodStart} to ${periodEnd}`,
      category: 'platform_fee',
      quantity: monthsTouched(periodStart, periodEnd),
      unit_amount: priceOf(prices, 'platform_fee_monthly'),
    },
  ];
  for (const category of USAGE_ORDER) {
    const source = SOURCES[category];
    const quantity = source ? await source.count(db, clientId, from, to) : 0;
    lines.push({
      description: source?.description ?? category.replace(/_/g, ' '),
      category,
      quantity,
      unit_amount: priceOf(prices, source?.priceKey ?? priceKeyOf(category)),
    });
  }
  return lines;
}

function priceKeyOf(category: UsageCategory): PriceKey {
  return category === 'transaction_fee' ? 'transaction_success' : category;
}

/**
 * What a sandbox deployment bills a client staff gave no price list: every sandbox client, old or
 * new, can try usage and invoices at once. Nothing is stored (no seeding, no migration); a list
 * staff set replaces it. Production has no default: 400 `Client has no billing price list`.
 */
export const SANDBOX_DEFAULT_PRICES: { currency: string; prices: Record<PriceKey, string> } = {
  currency: 'EUR',
  prices: {
    platform_fee_monthly: '49.00',
    transaction_success: '0.25',
    kyc_verification: '1.50',
    kyb_verification: '3.00',
    wallet_screening: '0.10',
    travel_rule_transfer: '0.50',
    contract_request: '1.00',
  },
};

export interface EffectivePriceList {
  row: PriceListRow;
  source: 'custom' | 'sandbox_default';
}

/** The client's own list, else (sandbox only) the default; undefined in production without one. */
export async function findEffectivePriceList(
  db: DbOrTx,
  environment: Environment,
  clientId: string,
): Promise<EffectivePriceList | undefined> {
  const row = await findPriceList(db, clientId);
  if (row) return { row, source: 'custom' };
  if (environment !== 'sandbox') return undefined;
  const epoch = new Date(0);
  return {
    source: 'sandbox_default',
    row: {
      clientId,
      currency: SANDBOX_DEFAULT_PRICES.currency,
      ...priceColumns(SANDBOX_DEFAULT_PRICES.prices),
      createdAt: epoch,
      updatedAt: epoch,
    },
  };
}

/** The price list's columns of a `prices` object (the API's keys). */
export function priceColumns(p: Record<PriceKey, string>) {
  return {
    platformFeeMonthly: p.platform_fee_monthly,
    transactionSuccess: p.transaction_success,
    kycVerification: p.kyc_verification,
    kybVerification: p.kyb_verification,
    walletScreening: p.wallet_screening,
    travelRuleTransfer: p.travel_rule_transfer,
    contractRequest: p.contract_request,
  };
}

export async function requirePriceList(
  db: DbOrTx,
  environment: Environment,
  clientId: string,
): Promise<PriceListRow> {
  const prices = await findEffectivePriceList(db, environment, clientId);
  if (!prices) throw badRequest(BillingMessages.noPriceList);
  return prices.row;
}

/** Amount of each line (quantity × unit, rounded half-up to 2 decimals) and their subtotal. */
export function priceLines(lines: UsageLine[]): { amounts: string[]; subtotal: string } {
  const amounts = lines.map((l) => lineAmount(l.quantity, l.unit_amount));
  return { amounts, subtotal: sum(amounts, 2) };
}

/** GET /billing/usage: the current UTC month so far. */
export async function estimateCurrentUsage(
  db: DbOrTx,
  environment: Environment,
  clientId: string,
  now: Date,
) {
  const prices = await requirePriceList(db, environment, clientId);
  const periodStart = isoDate(startOfMonth(now));
  const periodEnd = lastDateOfMonth(now);
  const lines = await usageLines(db, clientId, prices, periodStart, periodEnd);
  const { amounts, subtotal } = priceLines(lines);
  return {
    period_start: periodStart,
    period_end: periodEnd,
    currency: prices.currency,
    lines: lines.map((l, i) => ({ ...l, amount: amounts[i]! })),
    subtotal,
  };
}
