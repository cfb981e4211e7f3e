/** A ticket's `allowed_actions`, from the ticket machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import {
  canRate,
  isClientEditable,
  isClosed,
  isWithinReopenWindow,
  type TicketStatus,
  ticketMachine,
} from './tickets.machine';

export const ticketActions = defineActions(
  ticketMachine,
  (t: { status: TicketStatus; reopenable: boolean }) => t.status,
  {
    edit: { permission: 'tickets.write', statuses: isClientEditable },
    reply: { permission: 'tickets.write', statuses: isClientEditable },
    close: { permission: 'tickets.write', triggers: ['client_close'] },
    reopen: { permission: 'tickets.write', triggers: ['client_reopen'], when: (t) => t.reopenable },
    rate: { permission: 'tickets.write', statuses: canRate },
    follow_up: { permission: 'tickets.write', statuses: isClosed },
    simulate: { permission: 'sandbox.simulate', statuses: (s) => !isClosed(s), sandboxOnly: true },
  },
);

export const TicketActionsSchema = allowedActionsSchema(ticketActions, {
  edit: 'PATCH /tickets/{ticket_id} (not closed)',
  reply: 'POST /tickets/{ticket_id}/messages (not closed)',
  close: 'POST /tickets/{ticket_id}/close (resolved)',
  reopen: 'POST /tickets/{ticket_id}/reopen (closed, within SVC_TICKET_REOPEN_WINDOW_DAYS of closed_at)',
  rate: 'POST /tickets/{ticket_id}/satisfaction (resolved or closed)',
  follow_up: 'POST /tickets with `follow_up_of` naming this ticket (closed)',
  simulate: 'POST /sandbox/tickets/{ticket_id}/simulate (sandbox, not closed)',
});

/** The client view with the caller's actions; the reopen window runs from `closed_at` to `now`. */
export function withTicketActions<V extends { status: TicketStatus; closed_at: string | null }>(
  view: V,
  viewer: ActionViewer,
  reopenWindow: { now: Date; days: number },
) {
  const closedAt = view.closed_at ? new Date(view.closed_at) : null;
  const reopenable = isWithinReopenWindow(closedAt, reopenWindow.now, reopenWindow.days);
  return Object.assign(view, {
    allowed_actions: ticketActions.of({ status: view.status, reopenable }, viewer),
  });
}
