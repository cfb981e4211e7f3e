/**
 * Persists what bulk.machine.ts decides for a job: the compare-and-set, then, in the same
 * transaction, `paylink.bulk.status_changed`, the activity entry and (when the job is final) the
 * notification to the account that created it and the owners.
 */
import type { Tx } from '../../db/client';
import { bulkPaymentJobs } from '../../db/schema/index';
import { emitEvent } from '../../outbox/emit';
import { machineTable, transition } from '../../platform/machine';
import { recordActivity } from '../activity/activity-writer.service';
import { notify, OWNER_ONLY } from '../notifications/notify.service';
import { isFinalJobStatus, type JobStatus, type JobTrigger, jobMachine } from './bulk.machine';
import { BulkLinkMessages } from './bulk.messages';
import { countRows, type JobCounts, type JobRow } from './bulk.repo';

const jobTable = machineTable(jobMachine, bulkPaymentJobs, {
  version: 'version',
  conflict: BulkLinkMessages.jobChangedMeanwhile,
});

const ACTIONS: Record<JobTrigger, string> = {
  confirm: 'bulk_job.confirmed',
  expire_preview: 'bulk_job.expired',
  claim: 'bulk_job.started',
  finish_clean: 'bulk_job.completed',
  finish_with_errors: 'bulk_job.completed_with_errors',
  retry: 'bulk_job.retried',
  cancel: 'bulk_job.canceled',
};

/** Timestamps each target status sets. */
function stampsFor(to: JobStatus, job: JobRow, at: Date): Partial<JobRow> {
  switch (to) {
    case 'queued':
      return { confirmedAt: at };
    case 'processing':
      return { startedAt: job.startedAt ?? at, finishedAt: null };
    case 'completed':
    case 'completed_with_errors':
    case 'expired':
      return { finishedAt: at };
    case 'canceled':
      return { canceledAt: at, finishedAt: at };
    default:
      return {};
  }
}

export async function emitJobStatus(
  tx: Tx,
  job: JobRow,
  previous: JobStatus | null,
  counts: JobCounts,
  at: Date,
): Promise<void> {
  await emitEvent(tx, {
    clientId: job.clientId,
    type: 'paylink.bulk.status_changed',
    data: {
      bulk_id: job.id,
      previous_status: previous,
      current_status: job.status,
      total: counts.total,
      created: counts.created,
      failed: counts.failed,
      invalid: counts.invalid,
      canceled: counts.canceled,
    },
    occurredAt: at,
    dedupKey: `paylink.bulk:${job.id}:v${job.version}`,
  });
}

/**
 * Applies `trigger` to the job (throws the 400 when the table refuses it; null when a concurrent
 * writer moved it first). `beforeEvent` runs after the move and before the event, for row moves that
 * the event's counts must include.
 */
export async function moveJob(
  tx: Tx,
  job: JobRow,
  trigger: JobTrigger,
  at: Date,
  opts: {
    set?: Partial<JobRow>;
    beforeEvent?: (moved: JobRow) => Promise<void>;
    metadata?: Record<string, unknown>;
  } = {},
): Promise<JobRow | null> {
  let counts: JobCounts | undefined;
  return transition(tx, jobTable, job, trigger, {
    set: ({ to }) => ({ updatedAt: at, ...stampsFor(to, job, at), ...opts.set }),
    lost: 'null',
    before: async (moved) => {
      await opts.beforeEvent?.(moved);
      counts = (await countRows(tx, [moved.id])).get(moved.id)!;
    },
    event: (moved, { from }) => emitJobStatus(tx, moved, from, counts!, at),
    activity: (moved, { from, to }) =>
      recordActivity(tx, {
        clientId: moved.clientId,
        action: ACTIONS[trigger],
        at,
        target: { type: 'bulk_job', id: moved.id, label: moved.fileName ?? `${counts!.total} rows` },
        changes: { status: { from, to } },
        metadata: { ...counts, ...opts.metadata },
      }),
    notify: async (moved, { to }) => {
      if (!isFinalJobStatus(to)) return;
      const c = counts!;
      await notify(tx, {
        clientId: moved.clientId,
        category: 'bulk_links',
        severity: to === 'completed_with_errors' ? 'warning' : 'info',
        title: `Bulk payment links ${to.replace(/_/g, ' ')}`,
        body:
          `${c.created} of ${c.total} payment links created` +
          `, ${c.failed} failed, ${c.invalid} invalid, ${c.canceled} canceled.`,
        item: { type: 'bulk_job', id: moved.id },
        audience: { roles: OWNER_ONLY, accountIds: [moved.createdByAccountId] },
        at,
      });
    },
  });
}
