/**
 * Calendar arithmetic in UTC, the one implementation every feature uses (docs/platform.md,
 * "Calendar"). An instant is a `Date`; a calendar date is an ISO `YYYY-MM-DD` string, which means
 * its 00:00 UTC. Days are 24 hours (UTC has no daylight saving); months clamp to their last day
 * (Jan 31 + 1 month = Feb 28, or 29).
 *
 * This module imports nothing from the service, so every layer (shared helpers included) may use it.
 */

export const DAY_MS = 86_400_000;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC calendar date of an instant, `YYYY-MM-DD`. */
export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

/** A real calendar date in `YYYY-MM-DD` (2025-02-30 is not). */
export function isIsoDate(s: string): boolean {
  if (!ISO_DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && isoDate(d) === s;
}

/** 00:00 UTC of a date (an ISO date, or the day of an instant). */
export function startOfDay(d: Date | string): Date {
  if (typeof d === 'string') return new Date(`${d.slice(0, 10)}T00:00:00.000Z`);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** Days in a month (`month` 0-11; out-of-range months roll into the neighbouring years). */
export const daysInMonth = (year: number, month: number): number =>
  new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** 00:00 UTC on the first of the month of `d`, moved by `months` (-1: the previous month's first). */
export function startOfMonth(d: Date | string, months = 0): Date {
  const t = typeof d === 'string' ? startOfDay(d) : d;
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + months, 1));
}

/** 00:00 UTC on 1 January of the year of `d`, moved by `years`. */
export function startOfYear(d: Date, years = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear() + years, 0, 1));
}

/** The last calendar date of the month of `d`, moved by `months`. */
export const lastDateOfMonth = (d: Date | string, months = 0): string =>
  isoDate(new Date(startOfMonth(d, months + 1).getTime() - DAY_MS));

/** n days later (earlier when negative): an instant keeps its time of day, a date stays a date. */
export function addDays(d: Date, n: number): Date;
export function addDays(d: string, n: number): string;
export function addDays(d: Date | string, n: number): Date | string {
  if (typeof d === 'string') return isoDate(new Date(startOfDay(d).getTime() + n * DAY_MS));
  return new Date(d.getTime() + n * DAY_MS);
}

/**
 * n months later (earlier when negative), the day clamped to the target month's length; an instant
 * keeps its time of day, a date stays a date.
 */
export function addMonths(d: Date, n: number): Date;
export function addMonths(d: string, n: number): string;
export function addMonths(d: Date | string, n: number): Date | string {
  const t = typeof d === 'string' ? startOfDay(d) : d;
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth() + n;
  const day = Math.min(t.getUTCDate(), daysInMonth(y, m));
  const out = new Date(
    Date.UTC(y, m, day, t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds(), t.getUTCMilliseconds()),
  );
  return typeof d === 'string' ? isoDate(out) : out;
}

/** Whole calendar months from the month of `from` to the month of `to` (days ignored). */
export const monthsBetween = (from: Date, to: Date): number =>
  (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth();

/** Whole days from the date of `from` to the date of `to` (negative when `to` is earlier). */
export const daysBetween = (from: Date | string, to: Date | string): number =>
  Math.round((startOfDay(to).getTime() - startOfDay(from).getTime()) / DAY_MS);
