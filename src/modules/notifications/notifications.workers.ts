/**
 * Background work of notifications and activity logs: the email channel (rows with
 * email_state 'pending' claimed with FOR UPDATE SKIP LOCKED and a lease, sent through the mailer,
 * retried with backoff) and the two retention jobs.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { retryDelaySeconds } from '../../shared/retry-schedule';
import { purgeActivityBefore } from '../activity/activity.repo';
import { currentLink, type NotificationLink } from './links';

export const NOTIFICATION_EMAIL_MAX_ATTEMPTS = 6;
const EMAIL_LEASE_SECONDS = 120;

interface DueEmail {
  id: string;
  email: string;
  title: string;
  body: string;
  severity: string;
  category: string;
  link: NotificationLink | null;
  email_attempts: number;
}

export async function sendDueNotificationEmails(
  deps: Pick<Deps, 'db' | 'clock' | 'mailer' | 'log' | 'config'>,
  limit = 20,
): Promise<number> {
  const now = deps.clock.now();
  const res = await deps.db.execute(sql`
    with due as (
      select n.id from notifications n
       where n.email_state = 'pending' and n.email_next_at <= ${now.toISOString()}::timestamptz
       order by n.email_next_at
       limit ${limit}
       for update skip locked
    )
    update notifications n
       set email_next_at = ${addSeconds(now, EMAIL_LEASE_SECONDS).toISOString()}::timestamptz,
           email_attempts = n.email_attempts + 1
      from due, accounts a
     where n.id = due.id and a.id = n.account_id
    returning n.id, a.email, n.title, n.body, n.severity, n.category, n.link, n.email_attempts`);
  const due = rowsOf<DueEmail>(res);
  for (const e of due) {
    try {
      const path = currentLink(e.link)?.path;
      const link = path ? `\n\nOpen: ${deps.config.publicUrl}${path}\n` : '\n';
      await deps.mailer.send({
        to: e.email,
        subject: e.severity === 'info' ? e.title : `[${e.severity}] ${e.title}`,
        text: `${e.body}${link}\nYou receive this because of your ${e.category} notification preferences.\n`,
      });
      await deps.db.execute(
        sql`update notifications set email_state = 'sent', email_next_at = null where id = ${e.id}::uuid`,
      );
    } catch (err) {
      const giveUp = e.email_attempts >= NOTIFICATION_EMAIL_MAX_ATTEMPTS;
      deps.log.warn(
        { err: err instanceof Error ? err.message : String(err), notificationId: e.id, giveUp },
        'notification email failed',
      );
      const next = giveUp
        ? null
        : addSeconds(deps.clock.now(), retryDelaySeconds(e.email_attempts)).toISOString();
      await deps.db.execute(sql`
        update notifications set email_state = ${giveUp ? 'failed' : 'pending'},
               email_next_at = ${next}::timestamptz where id = ${e.id}::uuid`);
    }
  }
  return due.length;
}

/**
 * Read or archived notifications older than SVC_NOTIFICATION_RETENTION_DAYS are deleted, and so are
 * email-only rows (in-app switched off) whose email is settled.
 */
export async function purgeOldNotifications(deps: Pick<Deps, 'db' | 'clock' | 'config'>, batch = 1000) {
  const cutoff = addSeconds(deps.clock.now(), -deps.config.notificationRetentionDays * 86400);
  const res = await deps.db.execute(sql`
    delete from notifications where id in (
      select id from notifications
       where created_at < ${cutoff.toISOString()}::timestamptz
         and (read_at is not null or archived_at is not null
              or (not in_app and email_state <> 'pending'))
       limit ${batch})
    returning id`);
  return rowsOf(res).length;
}

/** Activity entries older than SVC_ACTIVITY_LOG_RETENTION_DAYS (the trigger's one exception). */
export async function purgeOldActivityLogs(deps: Pick<Deps, 'db' | 'clock' | 'config'>, batch = 1000) {
  const cutoff = addSeconds(deps.clock.now(), -deps.config.activityLogRetentionDays * 86400);
  return purgeActivityBefore(deps.db, cutoff, batch);
}
