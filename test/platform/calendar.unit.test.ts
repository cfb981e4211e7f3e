/** The calendar module: UTC days and months, end-of-month clamping, ISO dates. */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  daysBetween,
  daysInMonth,
  isIsoDate,
  isoDate,
  lastDateOfMonth,
  monthsBetween,
  startOfDay,
  startOfMonth,
  startOfYear,
} from '../../src/platform/calendar';

const t = (s: string) => new Date(s);

describe('ISO dates', () => {
  it('accepts real calendar dates only', () => {
    for (const ok of ['2024-02-29', '2025-12-31', '2000-02-29', '1970-01-01'])
      expect(isIsoDate(ok), ok).toBe(true);
    for (const bad of [
      '2025-02-29',
      '1900-02-29',
      '2025-13-01',
      '2025-02-30',
      '2025-02-32',
      '2025-1-01',
      '2025-01-01T00:00:00Z',
      '',
    ])
      expect(isIsoDate(bad), bad).toBe(false);
  });

  it('formats and parses in UTC', () => {
    expect(isoDate(t('2025-03-31T23:59:59.999Z'))).toBe('2025-03-31');
    expect(startOfDay('2025-03-31').toISOString()).toBe('2025-03-31T00:00:00.000Z');
    expect(startOfDay(t('2025-03-31T23:59:59.999Z')).toISOString()).toBe('2025-03-31T00:00:00.000Z');
  });
});

describe('days', () => {
  it('adds days to dates and instants, across months, years and daylight-saving dates', () => {
    expect(addDays('2025-01-31', 1)).toBe('2025-02-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2025-03-30', 1)).toBe('2025-03-31'); // Europe's DST change: UTC has none
    expect(addDays(t('2025-03-29T12:34:56.789Z'), 2).toISOString()).toBe('2025-03-31T12:34:56.789Z');
    expect(addDays(t('2025-01-10T08:00:00Z'), -30).toISOString()).toBe('2024-12-11T08:00:00.000Z');
    expect(daysBetween('2024-02-01', '2024-03-01')).toBe(29);
    expect(daysBetween(t('2025-01-02T23:00:00Z'), t('2025-01-01T01:00:00Z'))).toBe(-1);
  });
});

describe('months', () => {
  it('clamps to the end of the target month, keeping the time of day', () => {
    expect(addMonths('2024-01-31', 1)).toBe('2024-02-29');
    expect(addMonths('2025-01-31', 1)).toBe('2025-02-28');
    expect(addMonths('2025-03-31', -1)).toBe('2025-02-28');
    expect(addMonths('2025-01-30', 13)).toBe('2026-02-28');
    expect(addMonths('2025-05-15', -17)).toBe('2023-12-15');
    expect(addMonths(t('2024-08-31T10:11:12.013Z'), 6).toISOString()).toBe('2025-02-28T10:11:12.013Z');
  });

  it('finds month and year starts and ends', () => {
    const now = t('2025-03-15T10:00:00Z');
    expect(startOfMonth(now).toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect(startOfMonth(now, -3).toISOString()).toBe('2024-12-01T00:00:00.000Z');
    expect(startOfMonth('2025-12-31', 1).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(lastDateOfMonth(now)).toBe('2025-03-31');
    expect(lastDateOfMonth(now, -1)).toBe('2025-02-28');
    expect(lastDateOfMonth('2024-02-10')).toBe('2024-02-29');
    expect(startOfYear(now, 1).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect([
      daysInMonth(2024, 1),
      daysInMonth(2025, 1),
      daysInMonth(2025, 11),
      daysInMonth(2025, 12),
    ]).toEqual([29, 28, 31, 31]);
    expect(monthsBetween(t('2024-11-30T00:00:00Z'), t('2025-02-01T00:00:00Z'))).toBe(3);
  });
});
