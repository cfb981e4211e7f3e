/**
 * The ticket background work, each a database row with a due time claimed with FOR UPDATE SKIP LOCKED
 * on the injected clock: auto-close of resolved tickets, and the emails owed for staff replies.
 */
import type { Deps } from '../../deps';
import { addSeconds } from '../../shared/clock';
import { retryDelaySeconds } from '../../shared/retry-schedule';
import { recordActivity } from '../activity/activity.writer';
import { claimDueTicketEmails, claimTicketsToAutoClose, markTicketEmail } from './tickets.repo';
import { moveTicket } from './tickets.transitions';

/** Resolved tickets without a client message for SVC_TICKET_AUTO_CLOSE_DAYS close (actor: automatic). */
export async function autoCloseResolvedTickets(deps: Pick<Deps, 'db' | 'clock' | 'config'>, limit = 100) {
  const now = deps.clock.now();
  const cutoff = addSeconds(now, -deps.config.ticketAutoCloseDays * 86400);
  return deps.db.transaction(async (tx) => {
    const due = await claimTicketsToAutoClose(tx, cutoff, limit);
    for (const t of due) {
      await moveTicket(tx, t, 'auto_close', { now, actorType: null });
      await recordActivity(tx, {
        clientId: t.clientId,
        action: 'ticket.closed',
        at: now,
        target: { type: 'ticket', id: t.id, label: `#${t.number} ${t.subject}`.slice(0, 200) },
        changes: { status: { from: 'resolved', to: 'closed' } },
        metadata: { automatic: true, auto_close_days: deps.config.ticketAutoCloseDays },
      });
    }
    return due.length;
  });
}

/** A sender that died mid-send gives its claim back after this long. */
const EMAIL_LEASE_SECONDS = 300;
export const TICKET_EMAIL_MAX_ATTEMPTS = 6;

/**
 * Sends the emails owed for staff public replies, outside any transaction. A failure is recorded on
 * the row (attempts, last_error) and retried with backoff; after the last attempt the row is
 * `failed`, visible on the staff ticket detail, never dropped silently.
 */
export async function sendDueTicketEmails(deps: Pick<Deps, 'db' | 'clock' | 'mailer' | 'log'>, limit = 20) {
  const now = deps.clock.now();
  const due = await claimDueTicketEmails(deps.db, now, addSeconds(now, EMAIL_LEASE_SECONDS), limit);
  for (const e of due) {
    try {
      await deps.mailer.send({
        to: e.recipient,
        subject: `[Ticket #${e.number}] Re: ${e.subject}`,
        text:
          `Support replied to your ticket #${e.number} (${e.subject}):\n\n${e.body}\n\n` +
          `Reply from the dashboard, or with POST /api/v1/tickets/${e.ticket_id}/messages.\n`,
      });
      await markTicketEmail(deps.db, e.id, { state: 'sent', sentAt: deps.clock.now(), nextAttemptAt: null });
    } catch (err) {
      const message =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      const giveUp = e.attempts >= TICKET_EMAIL_MAX_ATTEMPTS;
      deps.log.warn(
        { err: message, ticketEmailId: e.id, attempts: e.attempts, giveUp },
        'ticket email failed',
      );
      await markTicketEmail(deps.db, e.id, {
        state: giveUp ? 'failed' : 'pending',
        lastError: message.slice(0, 500),
        nextAttemptAt: giveUp ? null : addSeconds(deps.clock.now(), retryDelaySeconds(e.attempts)),
      });
    }
  }
  return due.length;
}
