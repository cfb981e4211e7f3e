/** Support tickets. */
import { defineModule } from '../../platform/module';
import { periodicWorker } from '../../workers/loop';
import { ticketReplyEmailJob } from './ticket-email';
import { ticketsRoutes } from './tickets.routes';
import { autoCloseResolvedTickets } from './tickets.workers';

export const ticketsModule = defineModule({
  name: 'tickets',
  api: [ticketsRoutes],
  jobs: [ticketReplyEmailJob],
  workers: (deps) => [
    // Resolved tickets close after SVC_TICKET_AUTO_CLOSE_DAYS without a client message.
    periodicWorker(deps, 'ticket-auto-close', 60_000, () => autoCloseResolvedTickets(deps, 100)),
  ],
});
