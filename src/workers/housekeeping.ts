/**
 * Housekeeping: the retention and clean-up tasks of every feature (expired auth rows, stale API-key
 * counters, read notifications, old activity logs, finished jobs, folded transaction counts, lapsed
 * refund accounts) run in one loop instead of one loop each. Each task has its own period; a tick
 * runs the tasks that are due, and a task that found work runs again on the next tick until it finds
 * none (batches drain), then waits its period. One task failing is logged and retried at its next
 * period; it does not hold the others back. Every node runs it: each task is idempotent and batched.
 */
import type { Deps } from '../deps';
import { loopWorker, SWEEP_IDLE_MAX_MS, type Worker } from './loop';

export interface HousekeepingTask {
  /** What the logs name it by (`task`). */
  name: string;
  /** The wait after a run that found nothing. */
  everyMs: number;
  /** One batch; returns how many rows it handled (positive: run again at once). */
  run: () => Promise<number>;
}

export function createHousekeepingWorker(
  deps: Pick<Deps, 'config' | 'log'>,
  tasks: readonly HousekeepingTask[],
): Worker {
  const nextAt = new Map<string, number>(tasks.map((t) => [t.name, 0]));
  const base = Math.max(Math.min(deps.config.workerPollMs, ...tasks.map((t) => t.everyMs)), 100);
  const tick = async (): Promise<number> => {
    let did = 0;
    for (const task of tasks) {
      // Real time, not the injected clock: periods are the loop's pacing, not business due times.
      const now = Date.now();
      if ((nextAt.get(task.name) ?? 0) > now) continue;
      let handled = 0;
      try {
        handled = await task.run();
      } catch (err) {
        deps.log.error({ err, worker: 'housekeeping', task: task.name }, 'housekeeping task failed');
      }
      nextAt.set(task.name, handled > 0 ? 0 : Date.now() + task.everyMs);
      did += handled;
    }
    return did;
  };
  return loopWorker('housekeeping', base, tick, deps.log, { idleMaxMs: Math.max(base, SWEEP_IDLE_MAX_MS) });
}
