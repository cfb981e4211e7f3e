/**
 * The ticket background work: auto-close of resolved tickets (rows claimed with FOR UPDATE SKIP LOCKED
 * on the injected clock). The emails owed for staff replies are jobs (ticket-email.ts).
 */
import type { Deps } from '../../deps';
import { addDays } from '../../platform/calendar';
import { recordActivity } from '../activity/activity.writer';
import { claimTicketsToAutoClose } from './tickets.repo';
import { moveTicket } from './tickets.transitions';

/** Resolved tickets without a client message for SVC_TICKET_AUTO_CLOSE_DAYS close (actor: automatic). */
export async function autoCloseResolvedTickets(deps: Pick<Deps, 'db' | 'clock' | 'config'>, limit = 100) {
  const now = deps.clock.now();
  const cutoff = addDays(now, -deps.config.ticketAutoCloseDays);
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
