/**
 * Background work of notifications and activity logs: the two retention sweeps. The email channel
 * is a job (notification-email.service.ts).
 */
import { sql } from 'drizzle-orm';
import type { Config } from '../../config';
import { rowsOf } from '../../db/client';
import { dropExpiredPartitions } from '../../db/partitions';
import type { Deps } from '../../deps';
import { addDays } from '../../platform/calendar';
import { purgeActivityBefore } from '../activity/activity.repo';

/**
 * Read or archived notifications older than SVC_NOTIFICATION_RETENTION_DAYS are deleted, and so are
 * email-only rows (in-app switched off) whose email is settled.
 */
export async function purgeOldNotifications(deps: Pick<Deps, 'db' | 'clock' | 'config'>, batch = 1000) {
  const cutoff = addDays(deps.clock.now(), -deps.config.notificationRetentionDays);
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

/**
 * Activity entries older than SVC_ACTIVITY_LOG_RETENTION_DAYS (the trigger's one exception). On
 * PostgreSQL, once the table is partitioned (src/db/partitions.ts), a month whose every entry is past
 * the cutoff is dropped whole; the entries of the month straddling the cutoff (and every entry on
 * PGlite) are deleted in batches as before.
 */
export async function purgeOldActivityLogs(
  deps: Pick<Deps, 'db' | 'clock' | 'database'> & { config: Pick<Config, 'activityLogRetentionDays'> },
  batch = 1000,
) {
  const cutoff = addDays(deps.clock.now(), -deps.config.activityLogRetentionDays);
  const dropped =
    deps.database.engine === 'postgres'
      ? await dropExpiredPartitions(deps.db, 'activity_logs', 'occurred_at', cutoff)
      : 0;
  return dropped + (await purgeActivityBefore(deps.db, cutoff, batch));
}
