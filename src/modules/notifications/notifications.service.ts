/**
 * A team member's inbox (docs/guides/notifications.md): list, counts, flags, bulk changes bounded by
 * `before`, preferences. Every route acts on the caller's own account only.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { badRequest, notFound } from '../../shared/errors';
import { type PageParams, paginationMeta } from '../../shared/pagination';
import { recordActivity } from '../activity/activity-writer.service';
import { currentLink, type NotificationLink } from './links.service';
import { NotificationMessages } from './notifications.messages';
import type { PreferencesInput } from './notifications.schemas';
import { MANDATORY_IN_APP, NOTIFICATION_CATEGORIES, type NotificationCategory } from './notify.service';

export interface Member {
  clientId: string;
  accountId: string;
}

interface Row {
  id: string;
  category: NotificationCategory;
  severity: 'info' | 'warning' | 'critical';
  title: string;
  body: string;
  link: NotificationLink | null;
  created_at: Date | string;
  seen_at: Date | string | null;
  read_at: Date | string | null;
  archived_at: Date | string | null;
}

const iso = (v: Date | string | null) =>
  v === null ? null : (v instanceof Date ? v : new Date(v)).toISOString();
const COLUMNS = sql.raw(
  'id, category, severity, title, body, link, created_at, seen_at, read_at, archived_at',
);

export function notificationView(r: Row) {
  return {
    notification_id: r.id,
    category: r.category,
    severity: r.severity,
    title: r.title,
    body: r.body,
    link: currentLink(r.link ?? null),
    created_at: iso(r.created_at)!,
    seen_at: iso(r.seen_at),
    read_at: iso(r.read_at),
    archived_at: iso(r.archived_at),
  };
}

const own = (m: Member) =>
  sql`account_id = ${m.accountId}::uuid and client_id = ${m.clientId}::uuid and in_app`;

export async function listNotifications(
  deps: Pick<Deps, 'db'>,
  m: Member,
  page: PageParams,
  f: { read?: boolean; archived: boolean; category?: string; severity?: string },
) {
  const parts: SQL[] = [own(m), f.archived ? sql`archived_at is not null` : sql`archived_at is null`];
  if (f.read !== undefined) parts.push(f.read ? sql`read_at is not null` : sql`read_at is null`);
  if (f.category) parts.push(sql`category = ${f.category}`);
  if (f.severity) parts.push(sql`severity = ${f.severity}`);
  const where = sql.join(parts, sql` and `);
  const [count, rows] = await Promise.all([
    deps.db.execute(sql`select count(*)::int as n from notifications where ${where}`),
    deps.db.execute(sql`select ${COLUMNS} from notifications where ${where}
      order by created_at desc, id desc limit ${page.pageSize} offset ${page.offset}`),
  ]);
  const total = Number(rowsOf<{ n: number }>(count)[0]?.n ?? 0);
  return { notifications: rowsOf<Row>(rows).map(notificationView), pagination: paginationMeta(total, page) };
}

export async function notificationCounts(deps: Pick<Deps, 'db'>, m: Member) {
  const res = await deps.db.execute(sql`
    select count(*) filter (where seen_at is null)::int as unseen_count,
           count(*) filter (where read_at is null)::int as unread_count
      from notifications where ${own(m)} and archived_at is null`);
  const r = rowsOf<{ unseen_count: number; unread_count: number }>(res)[0];
  return { unseen_count: Number(r?.unseen_count ?? 0), unread_count: Number(r?.unread_count ?? 0) };
}

export async function patchNotification(
  deps: Pick<Deps, 'db' | 'clock'>,
  m: Member,
  id: string,
  input: { read?: boolean; archived?: boolean },
) {
  const now = deps.clock.now().toISOString();
  return deps.db.transaction(async (tx) => {
    const found = rowsOf<Row>(
      await tx.execute(
        sql`select ${COLUMNS} from notifications where ${own(m)} and id = ${id}::uuid for update`,
      ),
    )[0];
    if (!found) throw notFound(NotificationMessages.notFound);
    const sets: SQL[] = [];
    if (input.read === true)
      sets.push(
        sql`read_at = coalesce(read_at, ${now}::timestamptz)`,
        sql`seen_at = coalesce(seen_at, ${now}::timestamptz)`,
      );
    if (input.read === false) sets.push(sql`read_at = null`);
    if (input.archived === true) sets.push(sql`archived_at = coalesce(archived_at, ${now}::timestamptz)`);
    if (input.archived === false) sets.push(sql`archived_at = null`);
    if (sets.length === 0) return notificationView(found);
    const row = rowsOf<Row>(
      await tx.execute(
        sql`update notifications set ${sql.join(sets, sql`, `)} where id = ${id}::uuid returning ${COLUMNS}`,
      ),
    )[0]!;
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (iso(found.read_at) !== iso(row.read_at))
      changes.read_at = { from: iso(found.read_at), to: iso(row.read_at) };
    if (iso(found.archived_at) !== iso(row.archived_at))
      changes.archived_at = { from: iso(found.archived_at), to: iso(row.archived_at) };
    if (Object.keys(changes).length > 0)
      await recordActivity(tx, {
        clientId: m.clientId,
        action: 'notification.updated',
        at: deps.clock.now(),
        target: { type: 'notification', id, label: found.title.slice(0, 200) },
        changes,
      });
    return notificationView(row);
  });
}

type Bulk = 'mark_seen' | 'mark_all_read' | 'archive_read';
const BULK: Record<Bulk, { set: (now: string) => SQL; where: SQL; action: string }> = {
  mark_seen: {
    set: (n) => sql`seen_at = ${n}::timestamptz`,
    where: sql`seen_at is null`,
    action: 'notifications.marked_seen',
  },
  mark_all_read: {
    set: (n) => sql`read_at = ${n}::timestamptz, seen_at = coalesce(seen_at, ${n}::timestamptz)`,
    where: sql`read_at is null`,
    action: 'notifications.marked_read',
  },
  archive_read: {
    set: (n) => sql`archived_at = ${n}::timestamptz`,
    where: sql`read_at is not null and archived_at is null`,
    action: 'notifications.archived',
  },
};

/** A bulk change of the caller's notifications; `before` leaves newer ones alone. */
export async function bulkUpdate(
  deps: Pick<Deps, 'db' | 'clock'>,
  m: Member,
  kind: Bulk,
  f: { category?: string; before?: string },
) {
  const now = deps.clock.now();
  const b = BULK[kind];
  const parts: SQL[] = [own(m), b.where];
  if (f.category) parts.push(sql`category = ${f.category}`);
  parts.push(
    f.before
      ? sql`created_at < ${new Date(f.before).toISOString()}::timestamptz`
      : sql`created_at <= ${now.toISOString()}::timestamptz`,
  );
  return deps.db.transaction(async (tx) => {
    const res = await tx.execute(
      sql`update notifications set ${b.set(now.toISOString())} where ${sql.join(parts, sql` and `)} returning id`,
    );
    const updated = rowsOf(res).length;
    if (updated > 0)
      await recordActivity(tx, {
        clientId: m.clientId,
        action: b.action,
        at: now,
        target: { type: 'account', id: m.accountId, label: null },
        metadata: { updated, category: f.category ?? null, before: f.before ?? null },
      });
    return { updated };
  });
}

interface PrefRow {
  email: Record<string, boolean>;
  in_app: Record<string, boolean>;
}

async function loadPrefs(db: DbOrTx, accountId: string): Promise<PrefRow> {
  const res = await db.execute(
    sql`select email, in_app from notification_preferences where account_id = ${accountId}::uuid`,
  );
  return rowsOf<PrefRow>(res)[0] ?? { email: {}, in_app: {} };
}

function prefsView(p: PrefRow) {
  const email: Record<string, boolean> = {};
  const inApp: Record<string, boolean> = {};
  const bySeverity: string[] = [];
  for (const c of NOTIFICATION_CATEGORIES) {
    if (typeof p.email[c] === 'boolean') email[c] = p.email[c]!;
    else bySeverity.push(c);
    inApp[c] = MANDATORY_IN_APP.includes(c) ? true : p.in_app[c] !== false;
  }
  return { email, in_app: inApp, email_by_severity: bySeverity };
}

export async function getPreferences(deps: Pick<Deps, 'db'>, m: Member) {
  return prefsView(await loadPrefs(deps.db, m.accountId));
}

/** Replaces the member's choices; a category left out goes back to its default. */
export async function putPreferences(deps: Pick<Deps, 'db' | 'clock'>, m: Member, input: PreferencesInput) {
  for (const c of MANDATORY_IN_APP)
    if (input.in_app?.[c] === false) throw badRequest(NotificationMessages.securityMandatory);
  const email = { ...(input.email ?? {}) };
  const inApp = { ...(input.in_app ?? {}) };
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const before = prefsView(await loadPrefs(tx, m.accountId));
    await tx.execute(sql`
      insert into notification_preferences (account_id, client_id, email, in_app, updated_at)
      values (${m.accountId}::uuid, ${m.clientId}::uuid, ${JSON.stringify(email)}::jsonb,
              ${JSON.stringify(inApp)}::jsonb, ${now.toISOString()}::timestamptz)
      on conflict (account_id) do update set email = excluded.email, in_app = excluded.in_app,
             updated_at = excluded.updated_at`);
    const after = prefsView({ email, in_app: inApp });
    await recordActivity(tx, {
      clientId: m.clientId,
      action: 'notification_preferences.updated',
      at: now,
      target: { type: 'account', id: m.accountId, label: null },
      changes: {
        email: { from: before.email, to: after.email },
        in_app: { from: before.in_app, to: after.in_app },
      },
    });
    return after;
  });
}
