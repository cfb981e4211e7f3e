/**
 * The ticket background work: the auto-close timer of resolved tickets (a job row set when a ticket
 * is resolved, tickets.transitions.ts). The emails owed for staff replies are jobs (ticket-email.service.ts).
 */
import { sql } from 'drizzle-orm';
import type { Deps } from '../../deps';
import { addDays } from '../../platform/calendar';
import { defineTimer, runDueTimers, setTimer } from '../../platform/jobs/index';
import { recordActivity } from '../activity/activity-writer.service';
import { findTicket } from './tickets.repo';
import { AUTO_CLOSE, moveTicket } from './tickets.transitions';

/**
 * A resolved ticket without a client message for SVC_TICKET_AUTO_CLOSE_DAYS closes (actor: automatic).
 * The handler re-reads the ticket under lock: reopened or closed meanwhile, it does nothing; resolved
 * more recently than the current setting allows (the setting grew), the timer moves to the new time.
 */
export const ticketAutoCloseTimer = defineTimer<{ ticketId: string }>({
  ...AUTO_CLOSE,
  label: 'Ticket auto-close',
  backfill: (deps) => sql`
    select 'ticket:' || id::text as key, jsonb_build_object('ticketId', id::text) as payload, client_id,
           resolved_at + make_interval(days => ${deps.config.ticketAutoCloseDays}::int) as run_at
      from tickets where status = 'resolved' and resolved_at is not null`,
  async fire(deps, { ticketId }) {
    const days = deps.config.ticketAutoCloseDays;
    return deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const t = await findTicket(tx, null, ticketId, true);
      if (t?.status !== 'resolved' || !t.resolvedAt) return false;
      const due = addDays(t.resolvedAt, days);
      if (due > now) {
        await setTimer(tx, deps.clock, AUTO_CLOSE, {
          payload: { ticketId },
          runAt: due,
          clientId: t.clientId,
        });
        return false;
      }
      await moveTicket(tx, t, 'auto_close', { now, actorType: null, autoCloseDays: days });
      await recordActivity(tx, {
        clientId: t.clientId,
        action: 'ticket.closed',
        at: now,
        target: { type: 'ticket', id: t.id, label: `#${t.number} ${t.subject}`.slice(0, 200) },
        changes: { status: { from: 'resolved', to: 'closed' } },
        metadata: { automatic: true, auto_close_days: days },
      });
      return true;
    });
  },
});

/** Runs the due auto-close timers now (tests, the CLI); returns how many tickets closed. */
export async function autoCloseResolvedTickets(deps: Deps): Promise<number> {
  return runDueTimers(deps, [ticketAutoCloseTimer]);
}
