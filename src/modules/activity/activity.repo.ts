/**
 * Reads of the activity log. Every query is keyed by client first and ordered by
 * (occurred_at desc, id desc), the order of activity_logs_client_occurred_idx, so the list and the
 * export walk that index. The export uses keyset pages over the same order and the same filters.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { containsPattern } from '../../shared/pagination';

export interface ActivityFilters {
  q?: string;
  action?: string;
  actorType?: string;
  actorAccountId?: string;
  credentialId?: string;
  targetType?: string;
  targetId?: string;
  outcome?: string;
  from?: Date;
  to?: Date;
}

export interface ActivityRow {
  id: string;
  occurred_at: Date | string;
  action: string;
  outcome: 'success' | 'failure';
  actor_type: 'client_user' | 'client_api' | 'service_internal' | 'system';
  actor_account_id: string | null;
  actor_email: string | null;
  actor_credential_id: string | null;
  actor_credential_label: string | null;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  method: string | null;
  path: string | null;
  changes: Record<string, { from: unknown; to: unknown }> | null;
  metadata: Record<string, unknown> | null;
}

const COLUMNS = sql.raw(
  `id, occurred_at, action, outcome, actor_type, actor_account_id, actor_email, actor_credential_id,
   actor_credential_label, target_type, target_id, target_label, request_id, ip, user_agent, method,
   path, changes, metadata`,
);

/** `action like 'prefix%'` with LIKE wildcards in the prefix taken literally. */
function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function whereOf(clientId: string, f: ActivityFilters): SQL {
  const parts: SQL[] = [sql`client_id = ${clientId}::uuid`];
  if (f.action) parts.push(sql`action like ${prefixPattern(f.action)}`);
  if (f.actorType) parts.push(sql`actor_type = ${f.actorType}`);
  if (f.actorAccountId) parts.push(sql`actor_account_id = ${f.actorAccountId}::uuid`);
  if (f.credentialId) parts.push(sql`actor_credential_id = ${f.credentialId}::uuid`);
  if (f.targetType) parts.push(sql`target_type = ${f.targetType}`);
  if (f.targetId) parts.push(sql`target_id = ${f.targetId}`);
  if (f.outcome) parts.push(sql`outcome = ${f.outcome}`);
  if (f.from) parts.push(sql`occurred_at >= ${f.from.toISOString()}::timestamptz`);
  if (f.to) parts.push(sql`occurred_at < ${f.to.toISOString()}::timestamptz`);
  if (f.q) {
    const p = containsPattern(f.q);
    parts.push(
      sql`(action ilike ${p} or coalesce(target_label, '') ilike ${p} or coalesce(actor_email, '') ilike ${p})`,
    );
  }
  return sql.join(parts, sql` and `);
}

/** The list's count statement (also what bench/partitions.ts explains). */
export function countActivityStatement(clientId: string, f: ActivityFilters, cap?: number): SQL {
  const where = whereOf(clientId, f);
  return cap
    ? sql`select count(*)::int as n from (select 1 from activity_logs where ${where} limit ${cap}) x`
    : sql`select count(*)::int as n from activity_logs where ${where}`;
}

export async function countActivity(db: DbOrTx, clientId: string, f: ActivityFilters, cap?: number) {
  const res = await db.execute(countActivityStatement(clientId, f, cap));
  return Number(rowsOf<{ n: number }>(res)[0]?.n ?? 0);
}

/** The list's page statement (also what bench/partitions.ts explains). */
export function listActivityStatement(
  clientId: string,
  f: ActivityFilters,
  limit: number,
  offset: number,
): SQL {
  return sql`
    select ${COLUMNS} from activity_logs where ${whereOf(clientId, f)}
     order by occurred_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function listActivity(
  db: DbOrTx,
  clientId: string,
  f: ActivityFilters,
  limit: number,
  offset: number,
): Promise<ActivityRow[]> {
  return rowsOf<ActivityRow>(await db.execute(listActivityStatement(clientId, f, limit, offset)));
}

/** One keyset page strictly after `after` in (occurred_at desc, id desc) order. */
export async function activityPageAfter(
  db: DbOrTx,
  clientId: string,
  f: ActivityFilters,
  after: { occurredAt: string; id: string } | null,
  limit: number,
): Promise<(ActivityRow & { cursor_at: string })[]> {
  const cursor = after
    ? sql` and (occurred_at, id) < (${after.occurredAt}::timestamptz, ${after.id}::uuid)`
    : sql``;
  const res = await db.execute(sql`
    select ${COLUMNS}, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
      from activity_logs where ${whereOf(clientId, f)}${cursor}
     order by occurred_at desc, id desc limit ${limit}`);
  return rowsOf<ActivityRow & { cursor_at: string }>(res);
}

export async function findActivity(
  db: DbOrTx,
  clientId: string,
  id: string,
): Promise<ActivityRow | undefined> {
  return rowsOf<ActivityRow>(await db.execute(findActivityStatement(clientId, id)))[0];
}

/** The lookup by id (also what bench/partitions.ts explains). */
export function findActivityStatement(clientId: string, id: string): SQL {
  return sql`select ${COLUMNS} from activity_logs where client_id = ${clientId}::uuid and id = ${id}::uuid`;
}

/**
 * Deletes entries older than `cutoff`, in batches, inside transactions that set
 * `svc.activity_retention` (the one exception the append-only trigger allows). Returns the count.
 */
export async function purgeActivityBefore(db: DbOrTx, cutoff: Date, batch: number): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('svc.activity_retention', 'on', true)`);
    const res = await tx.execute(sql`
      delete from activity_logs where id in (
        select id from activity_logs where occurred_at < ${cutoff.toISOString()}::timestamptz
         order by occurred_at limit ${batch})
      returning id`);
    return rowsOf(res).length;
  });
}
