/**
 * The support-ticket status machine: the only place that decides which status a ticket may move
 * to. Moves are persisted by tickets.transitions.ts through the platform's `transition`
 * (docs/platform.md, "Status machines") with their event and notifications.
 */
import { TICKET_STATUSES, type TicketStatus } from '../../db/schema/tickets';
import { addDays } from '../../platform/calendar';
import { defineMachine } from '../../platform/machine';
import { badRequest } from '../../shared/errors';
import { M } from '../../shared/messages';
import { TicketMessages } from './tickets.messages';

export { TICKET_STATUSES, type TicketStatus };

/** Every row of the ticket table (plus one staff row, marked), by trigger. */
export const TICKET_TRANSITIONS = {
  /** Staff public reply with `status: awaiting_client` (the default), or staff PATCH status. Emails the creator and CCs. */
  staff_await_client: { from: ['open'], to: 'awaiting_client' },
  /** A client message on a ticket waiting for the client or resolved. */
  client_message: { from: ['awaiting_client', 'resolved'], to: 'open' },
  /** Staff resolves (reply with `status: resolved`, or PATCH status). */
  staff_resolve: { from: ['open', 'awaiting_client'], to: 'resolved' },
  /** POST …/close by the client. */
  client_close: { from: ['resolved'], to: 'closed' },
  /** SVC_TICKET_AUTO_CLOSE_DAYS after resolution with no client message. */
  auto_close: { from: ['resolved'], to: 'closed' },
  /** Staff closes (PATCH status closed). */
  staff_close: { from: ['open', 'awaiting_client', 'resolved'], to: 'closed' },
  /** POST …/reopen within SVC_TICKET_REOPEN_WINDOW_DAYS of closed_at. */
  client_reopen: { from: ['closed'], to: 'open' },
  /** Beyond the product's table: staff put a ticket back to open (reply with `status: open`, or PATCH status). */
  staff_reopen: { from: ['awaiting_client', 'resolved'], to: 'open' },
} as const satisfies Record<string, { from: readonly TicketStatus[]; to: TicketStatus }>;

export type TicketTransition = keyof typeof TICKET_TRANSITIONS;

const STAFF_TRANSITIONS: readonly TicketTransition[] = [
  'staff_await_client',
  'staff_resolve',
  'staff_close',
  'staff_reopen',
];

export const targetOf = (t: TicketTransition): TicketStatus => TICKET_TRANSITIONS[t].to;

/** What the same action answers from the API: the client's own messages, else the staff move's. */
function refused(t: TicketTransition, from: TicketStatus) {
  if (t === 'client_close') return badRequest(M.onlyResolvedClientClose);
  if (t === 'client_reopen') return badRequest(TicketMessages.onlyClosedReopen);
  if (t === 'client_message' && from === 'closed') return badRequest(M.closedTicketReopenFirst);
  return badRequest(TicketMessages.staffMoveRefused(from, targetOf(t)));
}

/** No terminal status: a closed ticket may be reopened within the window. */
export const ticketMachine = defineMachine({
  name: 'ticket',
  statuses: TICKET_STATUSES,
  transitions: TICKET_TRANSITIONS,
  terminal: [],
  refused,
});

export const canApply = ticketMachine.can;

export const isClosed = (s: TicketStatus): boolean => s === 'closed';

/** True while a ticket closed at `closedAt` may still be reopened. */
export function isWithinReopenWindow(closedAt: Date | null, now: Date, windowDays: number): boolean {
  if (!closedAt) return true;
  return now < addDays(closedAt, windowDays);
}

/**
 * A client message: moves awaiting_client/resolved back to open, keeps open. A closed ticket refuses
 * it: inside the reopen window it must be reopened first, outside it only a follow-up ticket remains.
 */
export function decideClientMessage(
  from: TicketStatus,
  closedAt: Date | null,
  now: Date,
  windowDays: number,
): TicketTransition | null {
  if (from === 'closed') {
    throw badRequest(
      isWithinReopenWindow(closedAt, now, windowDays)
        ? M.closedTicketReopenFirst
        : M.closedTicketNoClientReplies,
    );
  }
  return canApply('client_message', from) ? 'client_message' : null;
}

/** POST …/close: only a resolved ticket. */
export function decideClientClose(from: TicketStatus): TicketTransition {
  ticketMachine.assert('client_close', from);
  return 'client_close';
}

/** POST …/reopen: a closed ticket within the window. */
export function decideClientReopen(
  from: TicketStatus,
  closedAt: Date | null,
  now: Date,
  windowDays: number,
): TicketTransition {
  ticketMachine.assert('client_reopen', from);
  if (!isWithinReopenWindow(closedAt, now, windowDays)) throw badRequest(TicketMessages.reopenWindowOver);
  return 'client_reopen';
}

/** `follow_up_of` must name a closed ticket. */
export function assertCanFollowUp(status: TicketStatus): void {
  if (!isClosed(status)) throw badRequest(TicketMessages.onlyClosedFollowUp);
}

/** The staff move from `from` to `to`: null when it is already there; 400 when no staff row allows it. */
export function decideStaffMove(from: TicketStatus, to: TicketStatus): TicketTransition | null {
  if (from === to) return null;
  const t = ticketMachine.triggerFor(from, to, STAFF_TRANSITIONS);
  if (!t) throw badRequest(TicketMessages.staffMoveRefused(from, to));
  return t;
}

/** Satisfaction is rated on resolved or closed tickets only. */
export const canRate = (s: TicketStatus): boolean => s === 'resolved' || s === 'closed';

export function assertCanRate(status: TicketStatus): void {
  if (!canRate(status)) throw badRequest(TicketMessages.satisfactionNotAllowed);
}

/** The client edits priority and CCs, and replies, while the ticket is not closed. */
export const isClientEditable = (s: TicketStatus): boolean => !isClosed(s);

export function assertClientEditable(status: TicketStatus): void {
  if (!isClientEditable(status)) throw badRequest(TicketMessages.closedNotEditable);
}
