/**
 * The calendar of a recurring payment's schedule (UTC dates): slot k is start_date + k intervals;
 * with `day_of_month` (month and year intervals) each slot falls on that day of its month, the first
 * on or after start_date. `end_date` and `max_runs` end the calendar. A run's `scheduled_for` is the
 * slot's date at 00:00 UTC.
 */
import type { RecurringScheduleJson } from '../../db/schema/recurring-payments';
import { addDays, addMonths, startOfDay, startOfMonth } from '../../platform/calendar';

const MAX_SLOTS = 10_000;

/** The date of slot k (ignoring end_date / max_runs). */
export function slotDate(s: RecurringScheduleJson, k: number): Date {
  const start = startOfDay(s.start_date);
  if (s.interval === 'week') return addDays(start, k * s.interval_count * 7);
  const months = (s.interval === 'month' ? 1 : 12) * s.interval_count * k;
  if (s.day_of_month !== undefined) {
    const firstShift = start.getUTCDate() > s.day_of_month ? 1 : 0;
    return addDays(startOfMonth(start, firstShift + months), s.day_of_month - 1);
  }
  return addMonths(start, months);
}

/**
 * The next run's scheduled_for: the first slot after `after` (the previous scheduled run, null for
 * the first) that is not before `notBefore`'s date; null when the calendar has ended (`end_date`,
 * or `max_runs` scheduled runs already created).
 */
export function nextSlot(
  s: RecurringScheduleJson,
  after: Date | null,
  notBefore: Date,
  scheduledSoFar: number,
): Date | null {
  if (s.max_runs !== undefined && scheduledSoFar >= s.max_runs) return null;
  const floor = startOfDay(notBefore);
  for (let k = 0; k < MAX_SLOTS; k++) {
    const d = slotDate(s, k);
    if (after && d <= after) continue;
    if (d < floor) continue;
    if (s.end_date !== undefined && d > startOfDay(s.end_date)) return null;
    return d;
  }
  return null;
}
