/**
 * Fans a notable change out to team members (docs/guides/notifications.md). Call `notify` with the
 * transaction that makes the change: one row per target account is written in one statement,
 * honouring each member's preferences. An email wanted is the `notifications.email` job, written in
 * the same transaction (notification-email.service.ts), so a rolled-back change never sends mail and a
 * committed one always does.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import type { Role } from '../auth/team/permissions.policy';
import { linkOf, type NotificationItem } from './links.service';
import { oweNotificationEmails } from './notification-email.service';

export const NOTIFICATION_CATEGORIES = [
  'payments',
  'verification',
  'opcos',
  'contracts',
  'monitoring',
  'screening',
  'travel_rule',
  'recurring_payments',
  'payment_schedules',
  'bulk_links',
  'tickets',
  'billing',
  'webhooks',
  'security',
  'system',
] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

export const NOTIFICATION_SEVERITIES = ['info', 'warning', 'critical'] as const;
export type NotificationSeverity = (typeof NOTIFICATION_SEVERITIES)[number];

/** Categories whose in-app channel cannot be switched off. */
export const MANDATORY_IN_APP: readonly NotificationCategory[] = ['security'];

export interface NotificationInput {
  clientId: string;
  category: NotificationCategory;
  severity: NotificationSeverity;
  title: string;
  body: string;
  /** What it is about: the notification links to that item's dashboard page (links.service.ts). */
  item?: NotificationItem | null;
  /** Active members having any of `roles`, plus the named accounts (deduplicated). */
  audience: { roles?: readonly Role[]; accountIds?: readonly (string | null | undefined)[] };
  at: Date;
}

/** The role audiences the named areas use. */
export const OWNER_AND_OPERATIONS: readonly Role[] = ['owner', 'operations'];
export const OWNER_AND_DEVELOPER: readonly Role[] = ['owner', 'developer'];
export const OWNER_ONLY: readonly Role[] = ['owner'];

/** Writes the notifications; returns how many members got one. */
export async function notify(tx: DbOrTx, n: NotificationInput): Promise<number> {
  const roles = [...(n.audience.roles ?? [])];
  const accountIds = (n.audience.accountIds ?? []).filter((a): a is string => !!a);
  const mandatory = MANDATORY_IN_APP.includes(n.category);
  const emailDefault = n.severity !== 'info';
  const res = await tx.execute(sql`
    with targets as (
      select a.id as account_id,
             ${mandatory} or coalesce((p.in_app ->> ${n.category})::boolean, true) as in_app,
             coalesce((p.email ->> ${n.category})::boolean, ${emailDefault}) as email
        from accounts a
        left join notification_preferences p on p.account_id = a.id
       where a.client_id = ${n.clientId}::uuid
         and a.is_active
         and (${inList(sql`a.role`, roles)} or ${inList(sql`a.id::text`, accountIds)})
    )
    insert into notifications (id, client_id, account_id, category, severity, title, body, link,
                               in_app, email_state, created_at)
    select gen_random_uuid(), ${n.clientId}::uuid, t.account_id, ${n.category}, ${n.severity}, ${n.title}, ${n.body},
           ${n.item ? JSON.stringify(linkOf(n.item)) : null}::jsonb, t.in_app,
           case when t.email then 'pending' else 'none' end,
           ${n.at.toISOString()}::timestamptz
      from targets t
     where t.in_app or t.email
    returning id, email_state`);
  const rows = rowsOf<{ id: string; email_state: string }>(res);
  const emails = rows.filter((r) => r.email_state === 'pending').map((r) => r.id);
  await oweNotificationEmails(tx, n.at, n.clientId, emails);
  return rows.length;
}

/** `column in (…)` with bound parameters; an empty list matches nothing. */
function inList(column: SQL, values: readonly string[]): SQL {
  if (values.length === 0) return sql`false`;
  return sql`${column} in (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}
