/**
 * The email channel of a notification: a job per email wanted, written with the notification by
 * `notify`. The row keeps the email's state (`pending`, `sent`, `failed` after the last attempt) and
 * its attempts; a job that finds its row already sent, or gone (retention), sends nothing.
 */
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client';
import { defineJob, EMAIL_RETRY, enqueueJobs, sendEmailThenMark } from '../../platform/jobs/index';
import { currentLink, type NotificationLink } from './links.service';

export const notificationEmailJob = defineJob<{ notificationId: string }>({
  kind: 'notifications.email',
  ...EMAIL_RETRY,
  async run(deps, { notificationId }, ctx) {
    const res = await deps.db.execute(sql`
      select n.id, a.email, n.title, n.body, n.severity, n.category, n.link, n.email_state
        from notifications n join accounts a on a.id = n.account_id
       where n.id = ${notificationId}::uuid`);
    const e = rowsOf<{
      id: string;
      email: string;
      title: string;
      body: string;
      severity: string;
      category: string;
      link: NotificationLink | null;
      email_state: string;
    }>(res)[0];
    if (e?.email_state !== 'pending') return;
    // Rows written before the dashboard paths existed are answered with today's path.
    const path = currentLink(e.link)?.path;
    const link = path ? `\n\nOpen: ${deps.config.publicUrl}${path}\n` : '\n';
    await sendEmailThenMark(
      deps,
      ctx,
      () =>
        deps.mailer.send({
          to: e.email,
          subject: e.severity === 'info' ? e.title : `[${e.severity}] ${e.title}`,
          text: `${e.body}${link}\nYou receive this because of your ${e.category} notification preferences.\n`,
        }),
      (o) =>
        deps.db.execute(sql`
          update notifications set email_state = ${o.state}, email_attempts = ${o.attempts}
           where id = ${e.id}::uuid`),
    );
  },
});

/** Owes the emails of just-written notifications, in their transaction (one statement). */
export async function oweNotificationEmails(
  tx: DbOrTx,
  at: Date,
  clientId: string,
  notificationIds: string[],
) {
  await enqueueJobs(
    tx,
    { now: () => at },
    notificationEmailJob,
    notificationIds.map((notificationId) => ({ payload: { notificationId }, runAt: at, clientId })),
  );
}
