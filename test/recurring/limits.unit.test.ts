/** Mandate limit periods: the window containing an instant, at the edges, for every period and both alignments. */
import { describe, expect, it } from 'vitest';
import { PERIODS, periodWindow } from '../../src/modules/recurring/recurring-limits.service';
import { addMonths } from '../../src/platform/calendar';

const t = (s: string) => new Date(s);
const win = (
  p: (typeof PERIODS)[number],
  a: 'calendar' | 'consent',
  at: string,
  from = '2026-01-31T15:30:00Z',
) => {
  const w = periodWindow(p, a, t(at), t(from));
  return [w.start.toISOString(), w.end.toISOString()];
};

describe('calendar alignment', () => {
  it('day, week (Monday), fortnight (ISO week pairs), month, half year, year', () => {
    expect(win('day', 'calendar', '2026-03-01T23:59:59.999Z')).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
    expect(win('day', 'calendar', '2026-03-02T00:00:00.000Z')[0]).toBe('2026-03-02T00:00:00.000Z');
    expect(win('week', 'calendar', '2026-01-18T23:59:59Z')).toEqual([
      '2026-01-12T00:00:00.000Z',
      '2026-01-19T00:00:00.000Z',
    ]);
    expect(win('week', 'calendar', '2026-01-19T00:00:00Z')[0]).toBe('2026-01-19T00:00:00.000Z');
    const f = win('fortnight', 'calendar', '2026-01-19T00:00:00Z');
    expect(new Date(f[1]!).getTime() - new Date(f[0]!).getTime()).toBe(14 * 86_400_000);
    expect(new Date(f[0]!).getUTCDay()).toBe(1);
    expect(win('month', 'calendar', '2026-02-28T23:59:59Z')).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(win('month', 'calendar', '2026-03-01T00:00:00Z')[0]).toBe('2026-03-01T00:00:00.000Z');
    expect(win('half_year', 'calendar', '2026-06-30T23:59:59Z')).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-07-01T00:00:00.000Z',
    ]);
    expect(win('half_year', 'calendar', '2026-07-01T00:00:00Z')).toEqual([
      '2026-07-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ]);
    expect(win('year', 'calendar', '2026-12-31T23:59:59Z')).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ]);
  });
});

describe('consent alignment (from valid_from 2026-01-31T15:30Z)', () => {
  it('day / week / fortnight step from valid_from', () => {
    expect(win('day', 'consent', '2026-02-01T15:29:59Z')).toEqual([
      '2026-01-31T15:30:00.000Z',
      '2026-02-01T15:30:00.000Z',
    ]);
    expect(win('day', 'consent', '2026-02-01T15:30:00Z')[0]).toBe('2026-02-01T15:30:00.000Z');
    expect(win('week', 'consent', '2026-02-07T15:30:00Z')[0]).toBe('2026-02-07T15:30:00.000Z');
    expect(win('fortnight', 'consent', '2026-02-14T15:29:59Z')).toEqual([
      '2026-01-31T15:30:00.000Z',
      '2026-02-14T15:30:00.000Z',
    ]);
  });

  it('month steps clamp the 31st to the month end, counted from valid_from', () => {
    expect(win('month', 'consent', '2026-02-28T15:29:59Z')).toEqual([
      '2026-01-31T15:30:00.000Z',
      '2026-02-28T15:30:00.000Z',
    ]);
    expect(win('month', 'consent', '2026-02-28T15:30:00Z')).toEqual([
      '2026-02-28T15:30:00.000Z',
      '2026-03-31T15:30:00.000Z',
    ]);
    expect(win('month', 'consent', '2026-03-31T15:30:00Z')[0]).toBe('2026-03-31T15:30:00.000Z');
    expect(addMonths(t('2024-01-31T00:00:00Z'), 1).toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  it('half year and year', () => {
    expect(win('half_year', 'consent', '2026-07-31T15:29:59Z')).toEqual([
      '2026-01-31T15:30:00.000Z',
      '2026-07-31T15:30:00.000Z',
    ]);
    expect(win('half_year', 'consent', '2026-07-31T15:30:00Z')[0]).toBe('2026-07-31T15:30:00.000Z');
    expect(win('year', 'consent', '2027-01-31T15:30:00Z')).toEqual([
      '2027-01-31T15:30:00.000Z',
      '2028-01-31T15:30:00.000Z',
    ]);
  });

  it('every window contains its instant and is contiguous with the next', () => {
    for (const p of PERIODS)
      for (const a of ['calendar', 'consent'] as const) {
        let at = t('2026-01-31T15:30:00Z');
        for (let i = 0; i < 30; i++) {
          const w = periodWindow(p, a, at, t('2026-01-31T15:30:00Z'));
          expect(w.start <= at && at < w.end).toBe(true);
          const next = periodWindow(p, a, w.end, t('2026-01-31T15:30:00Z'));
          expect(next.start.getTime()).toBe(w.end.getTime());
          at = new Date(w.end.getTime() + 1234567);
        }
      }
  });
});
