/** The job and row bodies of the API (docs/guides/bulk-links.md). */
import type { Deps } from '../../deps';
import { checkoutUrlOfToken } from '../payments/payments.service';
import type { JobCounts, JobRow, RowWithLink } from './bulk.repo';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toJobDto(job: JobRow, counts: JobCounts) {
  return {
    bulk_id: job.id,
    status: job.status,
    source: job.source as 'json' | 'csv' | 'xlsx',
    file_name: job.fileName,
    defaults: job.defaults as Record<string, unknown>,
    create_missing_users: job.createMissingUsers,
    warnings: job.warnings,
    preview_expires_at: iso(job.previewExpiresAt),
    created_at: job.createdAt.toISOString(),
    confirmed_at: iso(job.confirmedAt),
    started_at: iso(job.startedAt),
    finished_at: iso(job.finishedAt),
    canceled_at: iso(job.canceledAt),
    counts,
  };
}

export type JobDto = ReturnType<typeof toJobDto>;

export function toRowDto(deps: Pick<Deps, 'config'>, r: RowWithLink) {
  return {
    row_number: r.rowNumber,
    reference: r.reference,
    status: r.status,
    input: r.input,
    transaction_id: r.transactionId,
    checkout_url: r.checkoutToken ? checkoutUrlOfToken(deps, r.checkoutToken) : null,
    attempts: r.attempts,
    errors: r.errors,
    updated_at: r.updatedAt.toISOString(),
  };
}
