/**
 * The email owed for a staff public reply, one per recipient (the creator and each CC): a job written
 * with the reply and its `ticket_emails` row, which the staff ticket detail shows (state, attempts,
 * last error). A failure is recorded on the row and retried by the jobs runner; after the last attempt
 * the row is `failed`. A job that finds its row already sent (a re-run after a crash) sends nothing.
 */
import type { DbOrTx } from '../../db/client';
import {
  defineJob,
  EMAIL_RETRY,
  emailErrorText,
  enqueueJobId,
  sendEmailThenMark,
} from '../../platform/jobs/index';
import { markTicketEmail, ticketEmailWithReply } from './tickets.repo';

export const ticketReplyEmailJob = defineJob<{ ticketEmailId: string }>({
  kind: 'tickets.reply_email',
  ...EMAIL_RETRY,
  async run(deps, { ticketEmailId }, ctx) {
    const e = await ticketEmailWithReply(deps.db, ticketEmailId);
    if (e?.state !== 'pending') return;
    await sendEmailThenMark(
      deps,
      ctx,
      () =>
        deps.mailer.send({
          to: e.recipient,
          subject: `[Ticket #${e.number}] Re: ${e.subject}`,
          text:
            `Support replied to your ticket #${e.number} (${e.subject}):\n\n${e.body}\n\n` +
            `Reply from the dashboard, or with POST /api/v1/tickets/${e.ticket_id}/messages.\n`,
        }),
      (o) =>
        markTicketEmail(
          deps.db,
          e.id,
          o.sentAt
            ? { state: o.state, attempts: o.attempts, sentAt: o.sentAt }
            : { state: o.state, attempts: o.attempts, lastError: emailErrorText(o.error) },
        ),
    );
  },
});

/** Owes the emails of a reply's `ticket_emails` rows, in the reply's transaction. */
export async function oweTicketEmails(tx: DbOrTx, now: Date, clientId: string, ticketEmailIds: string[]) {
  for (const ticketEmailId of ticketEmailIds)
    await enqueueJobId(tx, { now: () => now }, ticketReplyEmailJob, {
      payload: { ticketEmailId },
      runAt: now,
      clientId,
    });
}
