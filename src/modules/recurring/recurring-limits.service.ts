/**
 * Mandate limit accounting. The period window containing an instant is computed here (UTC); the sum
 * and the comparison run in the database on NUMERIC (never floats), under the definition's row lock
 * so concurrent attempts serialize.
 *
 * - calendar alignment: day = UTC day, week = ISO week (Monday), fortnight = pairs of ISO weeks
 *   counted from Monday 1970-01-05, month = calendar month, half_year = Jan-Jun / Jul-Dec, year = calendar year.
 * - consent alignment: periods start at the mandate's valid_from and repeat every day, 7 days,
 *   14 days, month, 6 months or 12 months; month steps count from valid_from (a 31st clamps to the
 *   month's last day), never from the previous step.
 *
 * A run counts in the window of its latest attempt's start while that attempt is processing or has
 * succeeded (a failed attempt releases its amount).
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Tx } from '../../db/client';
import {
  addMonths,
  DAY_MS,
  monthsBetween,
  startOfDay,
  startOfMonth,
  startOfYear,
} from '../../platform/calendar';

export const PERIODS = ['day', 'week', 'fortnight', 'month', 'half_year', 'year'] as const;
export type Period = (typeof PERIODS)[number];
export type Alignment = 'calendar' | 'consent';

/** Weeks and fortnights of the calendar alignment start on Mondays, counted from 1970-01-05. */
const EPOCH_MONDAY = Date.UTC(1970, 0, 5);

const MONTHS: Partial<Record<Period, number>> = { month: 1, half_year: 6, year: 12 };
const DAYS: Partial<Record<Period, number>> = { day: 1, week: 7, fortnight: 14 };

/** The [start, end) window of `period` containing `at`. */
export function periodWindow(
  period: Period,
  alignment: Alignment,
  at: Date,
  validFrom: Date,
): { start: Date; end: Date } {
  if (alignment === 'calendar') {
    const day = startOfDay(at).getTime();
    switch (period) {
      case 'day':
        return { start: new Date(day), end: new Date(day + DAY_MS) };
      case 'week':
      case 'fortnight': {
        const len = period === 'week' ? 7 : 14;
        const k = Math.floor((day - EPOCH_MONDAY) / DAY_MS / len);
        const start = EPOCH_MONDAY + k * len * DAY_MS;
        return { start: new Date(start), end: new Date(start + len * DAY_MS) };
      }
      case 'month':
        return { start: startOfMonth(at), end: startOfMonth(at, 1) };
      case 'half_year': {
        const back = at.getUTCMonth() < 6 ? at.getUTCMonth() : at.getUTCMonth() - 6;
        return { start: startOfMonth(at, -back), end: startOfMonth(at, 6 - back) };
      }
      case 'year':
        return { start: startOfYear(at), end: startOfYear(at, 1) };
    }
  }
  const days = DAYS[period];
  if (days !== undefined) {
    const len = days * DAY_MS;
    const k = Math.floor((at.getTime() - validFrom.getTime()) / len);
    const start = validFrom.getTime() + k * len;
    return { start: new Date(start), end: new Date(start + len) };
  }
  const step = MONTHS[period]!;
  // Estimate the period index from the month difference, then correct by at most one step either way.
  let k = Math.floor(monthsBetween(validFrom, at) / step);
  while (addMonths(validFrom, k * step) > at) k--;
  while (addMonths(validFrom, (k + 1) * step) <= at) k++;
  return { start: addMonths(validFrom, k * step), end: addMonths(validFrom, (k + 1) * step) };
}

export interface LimitCheck {
  definitionId: string;
  maxAmountPerPayment: string;
  periodicAmount: string;
  period: Period;
  alignment: Alignment;
  validFrom: Date;
  /** The run being charged now (excluded from the usage: its own earlier attempts have failed). */
  runId: string | null;
  amount: string;
  at: Date;
}

/** True when `amount` fits the per-payment limit and the period's remaining limit (NUMERIC in SQL). */
export async function fitsMandateLimits(tx: Tx, c: LimitCheck): Promise<boolean> {
  const w = periodWindow(c.period, c.alignment, c.at, c.validFrom);
  const res = await tx.execute(sql`
    select (${c.amount}::numeric <= ${c.maxAmountPerPayment}::numeric
            and coalesce(sum(r.amount), 0) + ${c.amount}::numeric <= ${c.periodicAmount}::numeric) as ok
      from recurring_runs r
      join lateral (select a.started_at, a.outcome from recurring_attempts a
                     where a.run_id = r.id order by a.attempt_number desc limit 1) la on true
     where r.definition_id = ${c.definitionId}::uuid
       and (${c.runId}::uuid is null or r.id <> ${c.runId}::uuid)
       and (la.outcome is null or la.outcome = 'succeeded')
       and la.started_at >= ${w.start.toISOString()}::timestamptz
       and la.started_at < ${w.end.toISOString()}::timestamptz`);
  return rowsOf<{ ok: boolean }>(res)[0]?.ok === true;
}
