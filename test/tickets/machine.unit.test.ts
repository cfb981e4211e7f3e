/** The ticket status machine, table row by table row, and the reopen-window decisions. */
import { describe, expect, it } from 'vitest';
import {
  canApply,
  decideClientClose,
  decideClientMessage,
  decideClientReopen,
  decideStaffMove,
  TICKET_STATUSES,
  TICKET_TRANSITIONS,
  type TicketStatus,
  type TicketTransition,
} from '../../src/modules/tickets/tickets.machine';

const DAY = 86_400_000;
const now = new Date('2026-03-01T00:00:00Z');
const ago = (days: number) => new Date(now.getTime() - days * DAY);

describe('ticket machine', () => {
  it('allows exactly the rows of the table', () => {
    const rows: [TicketTransition, TicketStatus[], TicketStatus][] = [
      ['staff_await_client', ['open'], 'awaiting_client'],
      ['client_message', ['awaiting_client', 'resolved'], 'open'],
      ['staff_resolve', ['open', 'awaiting_client'], 'resolved'],
      ['client_close', ['resolved'], 'closed'],
      ['auto_close', ['resolved'], 'closed'],
      ['staff_close', ['open', 'awaiting_client', 'resolved'], 'closed'],
      ['client_reopen', ['closed'], 'open'],
      ['staff_reopen', ['awaiting_client', 'resolved'], 'open'],
    ];
    expect(Object.keys(TICKET_TRANSITIONS).sort()).toEqual(rows.map((r) => r[0]).sort());
    for (const [t, from, to] of rows) {
      expect(TICKET_TRANSITIONS[t].to).toBe(to);
      for (const s of TICKET_STATUSES) expect(canApply(t, s), `${t} from ${s}`).toBe(from.includes(s));
    }
  });

  it('decides client messages, closes and reopens with the spec messages', () => {
    expect(decideClientMessage('open', null, now, 30)).toBeNull();
    expect(decideClientMessage('awaiting_client', null, now, 30)).toBe('client_message');
    expect(decideClientMessage('resolved', null, now, 30)).toBe('client_message');
    expect(() => decideClientMessage('closed', ago(29), now, 30)).toThrow(
      'Closed tickets must be reopened before replying',
    );
    expect(() => decideClientMessage('closed', ago(30), now, 30)).toThrow(
      'Closed tickets cannot receive new client replies',
    );
    expect(decideClientClose('resolved')).toBe('client_close');
    for (const s of ['open', 'awaiting_client', 'closed'] as const)
      expect(() => decideClientClose(s)).toThrow('Only resolved tickets can be closed by the client');
    expect(decideClientReopen('closed', ago(1), now, 30)).toBe('client_reopen');
    expect(() => decideClientReopen('closed', ago(31), now, 30)).toThrow(
      'Ticket can no longer be reopened; create a follow-up ticket',
    );
    expect(() => decideClientReopen('open', null, now, 30)).toThrow('Only closed tickets can be reopened');
  });

  it('maps staff status changes onto staff rows only', () => {
    expect(decideStaffMove('open', 'open')).toBeNull();
    expect(decideStaffMove('open', 'awaiting_client')).toBe('staff_await_client');
    expect(decideStaffMove('awaiting_client', 'resolved')).toBe('staff_resolve');
    expect(decideStaffMove('resolved', 'closed')).toBe('staff_close');
    expect(decideStaffMove('resolved', 'open')).toBe('staff_reopen');
    expect(() => decideStaffMove('closed', 'open')).toThrow("Ticket cannot move from 'closed' to 'open'");
    expect(() => decideStaffMove('resolved', 'awaiting_client')).toThrow();
  });
});
