/**
 * Every background worker of the service; server.ts starts them after listen and stops them on
 * shutdown. The platform's own workers come first, then each module's (its manifest's `workers`).
 */
import type { Deps } from '../deps';
import { jobDefinitions, modules } from '../modules/index';
import { createJobRunner, purgeFinishedJobs } from '../platform/jobs/index';
import { loopWorker, type Worker } from './loop';
import { createPgliteAnalyzeWorker } from './pglite-analyze';
import { createWebhookDeliveryWorker } from './webhook-delivery';

/** Finished jobs are kept this long (staff can look at them), then purged. */
const JOB_RETENTION_DAYS = 7;

/** The platform's workers: jobs, webhook delivery (the outbox) and PGlite's statistics. */
function platformWorkers(deps: Deps): Worker[] {
  return [
    // Work owed after commits (emails, provider calls, sealing) and timers: one claim statement per idle tick.
    createJobRunner(deps, jobDefinitions, { pollMs: deps.config.workerPollMs }),
    loopWorker('jobs-retention', 3_600_000, () => purgeFinishedJobs(deps, JOB_RETENTION_DAYS), deps.log),
    ...(deps.database.engine === 'pglite' ? [createPgliteAnalyzeWorker(deps)] : []),
    createWebhookDeliveryWorker(deps),
  ];
}

export function createWorkers(deps: Deps): Worker[] {
  return [...platformWorkers(deps), ...modules.flatMap((m) => m.workers?.(deps) ?? [])];
}
