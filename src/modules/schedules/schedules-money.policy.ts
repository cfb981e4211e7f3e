/**
 * Schedules' amounts and dates: a plan split in the currency's minor units (src/platform/decimal.ts)
 * and an instalment's issue and grace instants from its UTC `YYYY-MM-DD` due date
 * (src/platform/calendar.ts).
 */
import { addDays, startOfDay } from '../../platform/calendar';
import { compare, currencyScale, round, splitEvenly, sum } from '../../platform/decimal';

/**
 * A plan split: each instalment is total / count rounded down to the currency's minor unit (2
 * decimals for EUR, GBP, USD); the remainder goes on the first. Null when an instalment would be 0.
 */
export function splitPlan(total: string, count: number, currency: string): string[] | null {
  const scale = currencyScale(currency);
  const parts = splitEvenly(round(total, scale, 'down'), count, scale);
  // The last part is total / count rounded down (the first also carries the remainder).
  return compare(parts[count - 1]!, '0') > 0 ? parts : null;
}

export const sumAmounts = (amounts: readonly string[], currency: string): string =>
  sum(amounts, currencyScale(currency));

/** issue_at: the start of (due_date - issue_days_before), UTC, or now when that has passed. */
export function issueAtOf(dueDate: string, issueDaysBefore: number, now: Date): Date {
  const at = startOfDay(addDays(dueDate, -issueDaysBefore));
  return at < now ? now : at;
}

/** The end of due_date + grace_days (UTC): the first instant after it. */
export const graceEndOf = (dueDate: string, graceDays: number): Date =>
  startOfDay(addDays(dueDate, graceDays + 1));
