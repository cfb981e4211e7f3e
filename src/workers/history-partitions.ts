/**
 * PostgreSQL only, with SVC_HISTORY_PARTITIONS on: the history tables' partitions (src/db/partitions.ts, docs/guides/scaling.md
 * "Partitioned history"). At start and every six hours: converts a table still plain, creates the
 * partitions of this month and the next three. Any number of nodes may run it (one at a time, under
 * an advisory lock; a run that finds everything in place changes nothing). The months follow the
 * ids' clock, which is the nodes' wall clock (UUIDv7), not the service's injectable clock.
 */

import { maintainHistoryPartitions } from '../db/partitions';
import type { Deps } from '../deps';
import type { HousekeepingTask } from './housekeeping';
import { quiet } from './loop';

const PERIOD_MS = 6 * 3_600_000;

/** A task of the housekeeping loop (src/workers/housekeeping.ts). */
export function historyPartitionsTask(deps: Deps): HousekeepingTask {
  return {
    name: 'history-partitions',
    everyMs: PERIOD_MS,
    run: quiet(async () => {
      const r = await maintainHistoryPartitions(deps.db, new Date());
      if (r.converted.length > 0 || r.created.length > 0)
        deps.log.info({ converted: r.converted, created: r.created }, 'history partitions maintained');
      if (r.blocked.length > 0)
        deps.log.warn(
          { blocked: r.blocked },
          'history partitions not created: the default partition holds rows of these months',
        );
    }),
  };
}
