/**
 * Decimal-exact amounts and calendar dates for schedules: amounts as BigInt minor units (never a
 * float), dates as UTC `YYYY-MM-DD`.
 */
import { currencyScale, fromMinorUnits, sum, toMinorUnits } from '../../platform/decimal';

/**
 * A plan split: each instalment is total / count rounded down to the currency's minor unit (2
 * decimals for EUR, GBP, USD); the remainder goes on the first. Null when an instalment would be 0.
 */
export function splitPlan(total: string, count: number, currency: string): string[] | null {
  const minor = toMinorUnits(total, currency, 'down');
  const n = BigInt(count);
  const each = minor / n;
  if (each <= 0n) return null;
  const first = each + (minor - each * n);
  return [first, ...Array.from({ length: count - 1 }, () => each)].map((m) => fromMinorUnits(m, currency));
}

export const sumAmounts = (amounts: readonly string[], currency: string): string =>
  sum(amounts, currencyScale(currency));

const DAY = 86_400_000;

export const dateOf = (d: Date): string => d.toISOString().slice(0, 10);
export const startOfDay = (date: string): Date => new Date(`${date}T00:00:00.000Z`);
export const addDays = (date: string, days: number): string =>
  dateOf(new Date(startOfDay(date).getTime() + days * DAY));

/** date + n months, clamped to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, last));
  return dateOf(target);
}

/** A real calendar date in YYYY-MM-DD. */
export function isCalendarDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && dateOf(new Date(`${s}T00:00:00.000Z`)) === s;
}

/** issue_at: the start of (due_date - issue_days_before), UTC, or now when that has passed. */
export function issueAtOf(dueDate: string, issueDaysBefore: number, now: Date): Date {
  const at = startOfDay(addDays(dueDate, -issueDaysBefore));
  return at < now ? now : at;
}

/** The end of due_date + grace_days (UTC): the first instant after it. */
export const graceEndOf = (dueDate: string, graceDays: number): Date =>
  startOfDay(addDays(dueDate, graceDays + 1));
