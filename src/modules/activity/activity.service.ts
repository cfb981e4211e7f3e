/** The activity-log list, detail and export (docs/guides/activity-logs.md). */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Deps } from '../../deps';
import { badRequest, notFound } from '../../shared/errors';
import { counterPage, normalizeSearchQuery, type PageParams } from '../../shared/pagination';
import { safeCell } from '../bulk-links/bulk-results.service';
import { ActivityMessages } from './activity.messages';
import {
  type ActivityFilters,
  type ActivityRow,
  activityPageAfter,
  countActivity,
  findActivity,
  listActivity,
} from './activity.repo';
import type { ActivityFilterInput } from './activity.schemas';

export const EXPORT_MAX_ROWS = 100_000;
const EXPORT_BATCH = 1000;

export function filtersOf(q: ActivityFilterInput): ActivityFilters {
  return {
    q: normalizeSearchQuery(q.q),
    action: q.action,
    actorType: q.actor_type,
    actorAccountId: q.actor_account_id,
    credentialId: q.credential_id,
    targetType: q.target_type,
    targetId: q.target_id,
    outcome: q.outcome,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  };
}

const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();

export function entryView(r: ActivityRow) {
  return {
    activity_id: r.id,
    occurred_at: iso(r.occurred_at),
    action: r.action,
    outcome: r.outcome,
    actor: {
      type: r.actor_type,
      account_id: r.actor_account_id,
      email: r.actor_email,
      credential_id: r.actor_credential_id,
      credential_label: r.actor_credential_label,
    },
    target: { type: r.target_type, id: r.target_id, label: r.target_label },
    request: {
      request_id: r.request_id,
      ip: r.ip,
      user_agent: r.user_agent,
      method: r.method,
      path: r.path,
    },
    changes: r.changes ?? null,
    metadata: r.metadata ?? {},
  };
}
export type ActivityEntry = ReturnType<typeof entryView>;

export async function listActivityLogs(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  page: PageParams,
  filters: ActivityFilters,
) {
  const [total, rows] = await Promise.all([
    countActivity(deps.db, clientId, filters),
    listActivity(deps.db, clientId, filters, page.pageSize, page.offset),
  ]);
  return counterPage('activity_logs', rows.map(entryView), total, page);
}

export async function getActivityLog(deps: Pick<Deps, 'db'>, clientId: string, id: string) {
  const row = await findActivity(deps.db, clientId, id);
  if (!row) throw notFound(ActivityMessages.entryNotFound);
  return entryView(row);
}

export const CSV_COLUMNS = [
  'activity_id',
  'occurred_at',
  'action',
  'outcome',
  'actor_type',
  'actor_account_id',
  'actor_email',
  'actor_credential_id',
  'actor_credential_label',
  'target_type',
  'target_id',
  'target_label',
  'request_id',
  'ip',
  'user_agent',
  'method',
  'path',
  'changes',
  'metadata',
] as const;

/** One CSV record; JSON columns as JSON text, formula-looking cells defused with a leading quote. */
export function csvRecord(e: ActivityEntry): string[] {
  const flat: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    activity_id: e.activity_id,
    occurred_at: e.occurred_at,
    action: e.action,
    outcome: e.outcome,
    actor_type: e.actor.type,
    actor_account_id: e.actor.account_id,
    actor_email: e.actor.email,
    actor_credential_id: e.actor.credential_id,
    actor_credential_label: e.actor.credential_label,
    target_type: e.target.type,
    target_id: e.target.id,
    target_label: e.target.label,
    request_id: e.request.request_id,
    ip: e.request.ip,
    user_agent: e.request.user_agent,
    method: e.request.method,
    path: e.request.path,
    changes: e.changes === null ? null : JSON.stringify(e.changes),
    metadata: JSON.stringify(e.metadata),
  };
  return CSV_COLUMNS.map((c) => safeCell(flat[c]));
}

/**
 * Counts first (at most EXPORT_MAX_ROWS + 1) so an oversized export is a plain 400, then streams
 * keyset pages of the same filters in the list's order.
 */
export async function exportActivityLogs(
  deps: Pick<Deps, 'db'>,
  clientId: string,
  filters: ActivityFilters,
  format: 'csv' | 'jsonl',
  maxRows = EXPORT_MAX_ROWS,
): Promise<Readable> {
  const n = await countActivity(deps.db, clientId, filters, maxRows + 1);
  if (n > maxRows) throw badRequest(ActivityMessages.exportTooLarge);
  async function* lines() {
    if (format === 'csv') yield stringify([[...CSV_COLUMNS]]);
    let after: { occurredAt: string; id: string } | null = null;
    let sent = 0;
    while (sent < maxRows) {
      const page = await activityPageAfter(
        deps.db,
        clientId,
        filters,
        after,
        Math.min(EXPORT_BATCH, maxRows - sent),
      );
      if (page.length === 0) return;
      const entries = page.map(entryView);
      yield format === 'csv'
        ? stringify(entries.map(csvRecord))
        : entries.map((e) => `${JSON.stringify(e)}\n`).join('');
      sent += page.length;
      const last = page[page.length - 1]!;
      after = { occurredAt: last.cursor_at, id: last.id };
      if (page.length < EXPORT_BATCH) return;
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
