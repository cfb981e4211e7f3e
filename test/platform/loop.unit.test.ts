/** The idle back-off of background loops: doubling while ticks find nothing, bounded, reset by work. */
import { describe, expect, it } from 'vitest';
import { nextWait } from '../../src/workers/loop';

describe('loop idle back-off', () => {
  it('doubles from the interval up to the bound while idle, and comes back at once on work', () => {
    const waits: number[] = [];
    let w: number | null = null;
    for (let i = 0; i < 6; i++) {
      w = nextWait(w, 0, 500, 5000);
      waits.push(w);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(nextWait(5000, 3, 500, 5000)).toBe(500);
  });

  it('without a bound the loop keeps its interval', () => {
    expect(nextWait(1000, 0, 1000, 1000)).toBe(1000);
  });
});
