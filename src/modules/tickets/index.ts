/** Support tickets. */
import { defineModule } from '../../platform/module';
import { ticketReplyEmailJob } from './ticket-email.service';
import { ticketsRoutes } from './tickets.routes';
import { ticketAutoCloseTimer } from './tickets.worker';

export const ticketsModule = defineModule({
  name: 'tickets',
  api: [ticketsRoutes],
  jobs: [ticketReplyEmailJob],
  // Resolved tickets close after SVC_TICKET_AUTO_CLOSE_DAYS without a client message.
  timers: [ticketAutoCloseTimer],
});
