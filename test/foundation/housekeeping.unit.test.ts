/** The housekeeping loop (src/workers/housekeeping.ts): periods per task, draining batches, failures isolated. */
import pino from 'pino';
import { expect, it, vi } from 'vitest';
import type { Config } from '../../src/config';
import { createHousekeepingWorker } from '../../src/workers/housekeeping';

const log = pino({ level: 'silent' });
const deps = { config: { workerPollMs: 50 } as Config, log };

it('runs each task at its own period, drains a task that found work, and survives a failing one', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    const batches = [3, 2, 0];
    const runs = { drain: 0, hourly: 0, failing: 0 };
    const worker = createHousekeepingWorker(deps, [
      {
        name: 'failing',
        everyMs: 60_000,
        run: async () => {
          runs.failing++;
          throw new Error('boom');
        },
      },
      {
        name: 'drain',
        everyMs: 10_000,
        run: async () => {
          runs.drain++;
          return batches.shift() ?? 0;
        },
      },
      {
        name: 'hourly',
        everyMs: 3_600_000,
        run: async () => {
          runs.hourly++;
          return 0;
        },
      },
    ]);
    // First tick: every task is due; the failing one does not stop the others.
    expect(await worker.runOnce()).toBe(3);
    expect(runs).toEqual({ drain: 1, hourly: 1, failing: 1 });
    // The task that found work runs again at once; the others wait for their period.
    expect(await worker.runOnce()).toBe(2);
    expect(await worker.runOnce()).toBe(0);
    expect(await worker.runOnce()).toBe(0);
    expect(runs).toEqual({ drain: 3, hourly: 1, failing: 1 });
    vi.advanceTimersByTime(10_000);
    await worker.runOnce();
    expect(runs).toEqual({ drain: 4, hourly: 1, failing: 1 });
    vi.advanceTimersByTime(50_000);
    await worker.runOnce();
    expect(runs).toEqual({ drain: 5, hourly: 1, failing: 2 });
    vi.advanceTimersByTime(3_600_000);
    await worker.runOnce();
    expect(runs.hourly).toBe(2);
  } finally {
    vi.useRealTimers();
  }
});
