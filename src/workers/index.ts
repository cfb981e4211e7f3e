/**
 * Every background worker of the service; server.ts starts them after listen and stops them on
 * shutdown. The platform's own workers come first, then each module's (its manifest's `workers`).
 * Work owed after a commit (emails, provider calls, sealing) and one-off timers are jobs, run by the
 * one jobs runner; what the modules add are periodic scans of rows with a due time. Every loop backs
 * off while idle, up to a bound that is its worst added delay (docs/platform.md, "Idle cost"): 1 s
 * for jobs and webhooks, 2 s for work a merchant just asked for (workflow runs, bulk uploads), 10 s
 * for due-time sweeps; the minute and hour sweeps keep their period.
 */
import type { Deps } from '../deps';
import { jobDefinitions, modules } from '../modules/index';
import { createJobRunner, purgeFinishedJobs } from '../platform/jobs/index';
import { historyPartitionsTask } from './history-partitions';
import { createHousekeepingWorker, type HousekeepingTask } from './housekeeping';
import type { Worker } from './loop';
import { createPgliteAnalyzeWorker } from './pglite-analyze';
import { createWebhookDeliveryWorker } from './webhook-delivery';

/** Finished jobs are kept this long (staff can look at them), then purged. */
const JOB_RETENTION_DAYS = 7;

/** The platform's workers: jobs, webhook delivery (the outbox) and PGlite's statistics. */
function platformWorkers(deps: Deps): Worker[] {
  const poll = deps.config.workerPollMs;
  return [
    // Emails and provider calls owed after commits, sealing, timers (docs/platform.md, "Jobs").
    createJobRunner(deps, jobDefinitions, { pollMs: poll, idleMaxMs: Math.max(poll, 1000) }),
    ...(deps.database.engine === 'pglite' ? [createPgliteAnalyzeWorker(deps)] : []),
    createWebhookDeliveryWorker(deps),
  ];
}

/** The platform's own housekeeping, then each module's (its manifest's `housekeeping`). */
function housekeepingTasks(deps: Deps): HousekeepingTask[] {
  return [
    { name: 'jobs-retention', everyMs: 3_600_000, run: () => purgeFinishedJobs(deps, JOB_RETENTION_DAYS) },
    // PostgreSQL, when enabled: history tables partitioned by month, partitions created ahead
    // (src/db/partitions.ts). The housekeeping loop's first tick runs it at start.
    ...(deps.database.engine === 'postgres' && deps.config.historyPartitions
      ? [historyPartitionsTask(deps)]
      : []),
    ...modules.flatMap((m) => m.housekeeping?.(deps) ?? []),
  ];
}

export function createWorkers(deps: Deps): Worker[] {
  return [
    ...platformWorkers(deps),
    createHousekeepingWorker(deps, housekeepingTasks(deps)),
    ...modules.flatMap((m) => m.workers?.(deps) ?? []),
  ];
}
