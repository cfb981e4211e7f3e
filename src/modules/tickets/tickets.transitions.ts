/**
 * Persists what tickets.machine.ts decides, in the caller's transaction: the compare-and-set update,
 * `ticket.status_changed`, and the notifications of a resolution. Nothing else writes tickets.status.
 */
import type { DbOrTx } from '../../db/client';
import { tickets } from '../../db/schema/tickets';
import { emitEvent } from '../../outbox/emit';
import { addDays } from '../../platform/calendar';
import { cancelTimer, setTimer, timerRef } from '../../platform/jobs/index';
import { machineTable, transition } from '../../platform/machine';
import { newId } from '../../shared/ids';
import { notify, OWNER_ONLY } from '../notifications/notify.service';
import { type TicketStatus, type TicketTransition, ticketMachine } from './tickets.machine';
import { TicketMessages } from './tickets.messages';
import type { TicketChanges, TicketRow } from './tickets.repo';

const ticketTable = machineTable(ticketMachine, tickets, { conflict: TicketMessages.changedMeanwhile });

/**
 * The auto-close timer of a resolved ticket (tickets.worker.ts handles it): set when the ticket is
 * resolved, to resolved_at + SVC_TICKET_AUTO_CLOSE_DAYS; removed when it leaves `resolved` first.
 */
export const AUTO_CLOSE = timerRef<{ ticketId: string }>({
  kind: 'tickets.auto_close',
  keyOf: (p) => `ticket:${p.ticketId}`,
});

/** Who moved it, as events name it: the client's actor type, service_internal for staff, null when automatic. */
export type TicketActorType = 'client_user' | 'client_api' | 'service_internal' | null;

/** The timestamps that go with entering a status. */
function timestampsFor(to: TicketStatus, now: Date): TicketChanges {
  switch (to) {
    case 'resolved':
      return { resolvedAt: now, closedAt: null };
    case 'closed':
      return { closedAt: now };
    default:
      return { resolvedAt: null, closedAt: null };
  }
}

/** Callers hold the ticket row lock, so a lost compare-and-set means a caller forgot it (409). */
export function moveTicket(
  tx: DbOrTx,
  ticket: TicketRow,
  trigger: TicketTransition,
  ctx: {
    now: Date;
    actorType: TicketActorType;
    /** SVC_TICKET_AUTO_CLOSE_DAYS, for the auto-close timer; unknown, the timer runs now and moves itself. */
    autoCloseDays?: number;
    extra?: TicketChanges;
  },
): Promise<TicketRow> {
  return transition(tx, ticketTable, ticket, trigger, {
    set: ({ to }) => ({ ...ctx.extra, ...timestampsFor(to, ctx.now), updatedAt: ctx.now }),
    event: (_updated, { from, to }) =>
      emitEvent(tx, {
        clientId: ticket.clientId,
        type: 'ticket.status_changed',
        data: {
          ticket_id: ticket.id,
          number: ticket.number,
          previous_status: from,
          current_status: to,
          actor_type: ctx.actorType,
        },
        occurredAt: ctx.now,
        dedupKey: `ticket:${ticket.id}:status:${newId()}`,
      }),
    notify: async (updated, { to }) => {
      if (to === 'resolved') await notifyTicket(tx, updated, ctx.now, 'resolved');
    },
    after: async (_updated, { from, to }) => {
      const timer = { ticketId: ticket.id };
      if (to === 'resolved')
        await setTimer(tx, { now: () => ctx.now }, AUTO_CLOSE, {
          payload: timer,
          runAt: addDays(ctx.now, ctx.autoCloseDays ?? 0),
          clientId: ticket.clientId,
        });
      else if (from === 'resolved') await cancelTimer(tx, AUTO_CLOSE, timer);
    },
  });
}

/** A staff reply or a resolution: the ticket's creator and the owners (docs/guides/tickets.md). */
export async function notifyTicket(tx: DbOrTx, t: TicketRow, at: Date, what: 'replied' | 'resolved') {
  await notify(tx, {
    clientId: t.clientId,
    category: 'tickets',
    severity: 'info',
    title:
      what === 'resolved' ? `Ticket #${t.number} was resolved` : `Support replied to ticket #${t.number}`,
    body: t.subject,
    item: { type: 'ticket', id: t.id },
    audience: { roles: OWNER_ONLY, accountIds: [t.createdByAccountId] },
    at,
  });
}

/** `ticket.message.created` for a public message (internal notes never produce an event). */
export async function emitMessageCreated(
  tx: DbOrTx,
  t: TicketRow,
  message: { id: string; authorType: string; createdAt: Date },
) {
  await emitEvent(tx, {
    clientId: t.clientId,
    type: 'ticket.message.created',
    data: {
      ticket_id: t.id,
      number: t.number,
      message_id: message.id,
      author_type: message.authorType,
      created_at: message.createdAt.toISOString(),
    },
    occurredAt: message.createdAt,
    dedupKey: `ticket-message:${message.id}`,
  });
}
