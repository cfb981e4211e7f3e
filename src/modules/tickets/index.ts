/** Support tickets. */
import { defineModule } from '../../platform/module';
import { loopWorker } from '../../workers/loop';
import { ticketsRoutes } from './tickets.routes';
import { autoCloseResolvedTickets, sendDueTicketEmails } from './tickets.workers';

export const ticketsModule = defineModule({
  name: 'tickets',
  api: [ticketsRoutes],
  workers: (deps) => [
    // Resolved tickets close after SVC_TICKET_AUTO_CLOSE_DAYS without a client message.
    loopWorker('ticket-auto-close', 60_000, () => autoCloseResolvedTickets(deps, 100), deps.log),
    // Emails owed for staff ticket replies (one row per recipient, retried with backoff).
    loopWorker(
      'ticket-email',
      Math.max(deps.config.workerPollMs, 1000),
      () => sendDueTicketEmails(deps, 20),
      deps.log,
    ),
  ],
});
