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
import { createHistoryPartitionsWorker } from './history-partitions';
import { periodicWorker, type Worker } from './loop';
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
    periodicWorker(deps, 'jobs-retention', 3_600_000, () => purgeFinishedJobs(deps, JOB_RETENTION_DAYS)),
    ...(deps.database.engine === 'pglite' ? [createPgliteAnalyzeWorker(deps)] : []),
    // PostgreSQL: history tables partitioned by month, partitions created ahead (src/db/partitions.ts).
    ...(deps.database.engine === 'postgres' && deps.config.historyPartitions
      ? [createHistoryPartitionsWorker(deps)]
      : []),
    createWebhookDeliveryWorker(deps),
  ];
}

export function createWorkers(deps: Deps): Worker[] {
  return [...platformWorkers(deps), ...modules.flatMap((m) => m.workers?.(deps) ?? [])];
}
