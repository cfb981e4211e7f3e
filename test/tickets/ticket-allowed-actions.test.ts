/** A ticket's allowed_actions match what the API accepts, per state and per role. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { tickets } from '../../src/db/schema/index';
import { ticketActions } from '../../src/modules/tickets/tickets.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestClient } from '../helpers/clients';
import { clientApp } from '../helpers/suites';
import { api, openTicket } from './fixtures';

const s = clientApp();

type Action = (typeof ticketActions.names)[number];
const call = (method: string, url: string, body?: unknown, caller = s.owner) =>
  api(s.ctx)(method, url, caller.headers, body);

async function ticket(...steps: string[]) {
  const id = (await openTicket(s.ctx, s.owner)).ticket_id;
  for (const s of steps) {
    const r = s.startsWith('sim:')
      ? await call('POST', `/sandbox/tickets/${id}/simulate`, { action: s.slice(4) })
      : await call('POST', `/tickets/${id}/${s}`);
    expect(r.statusCode, r.body).toBe(200);
  }
  return id;
}

/** Closed longer ago than the reopen window. */
async function closedLongAgo() {
  const id = await ticket('sim:resolve', 'close');
  const longAgo = new Date(
    s.ctx.clock.now().getTime() - (s.ctx.config.ticketReopenWindowDays + 1) * 86_400_000,
  );
  await s.ctx.db.update(tickets).set({ closedAt: longAgo }).where(eq(tickets.id, id));
  return id;
}

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  open: { expected: ['edit', 'reply', 'simulate'], make: () => ticket() },
  awaiting_client: { expected: ['edit', 'reply', 'simulate'], make: () => ticket('sim:agent_reply') },
  resolved: { expected: ['edit', 'reply', 'close', 'rate', 'simulate'], make: () => ticket('sim:resolve') },
  closed: { expected: ['reopen', 'rate', 'follow_up'], make: () => ticket('sim:resolve', 'close') },
  'closed, past the reopen window': { expected: ['rate', 'follow_up'], make: closedLongAgo },
};

const perform = (action: Action, id: string) =>
  ({
    edit: () => call('PATCH', `/tickets/${id}`, { priority: 'high' }),
    reply: () => call('POST', `/tickets/${id}/messages`, { body: 'More details' }),
    close: () => call('POST', `/tickets/${id}/close`),
    reopen: () => call('POST', `/tickets/${id}/reopen`),
    rate: () => call('POST', `/tickets/${id}/satisfaction`, { rating: 'good' }),
    follow_up: () =>
      call('POST', '/tickets', {
        subject: 'Again',
        body: 'Still late',
        category: 'payments',
        follow_up_of: id,
      }),
    simulate: () => call('POST', `/sandbox/tickets/${id}/simulate`, { action: 'resolve' }),
  })[action]();

describe('ticket allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ')}`, () =>
      expectActionsAgree({
        names: ticketActions.names,
        expected,
        make,
        actionsOf: async (id) => (await call('GET', `/tickets/${id}`)).json().allowed_actions,
        perform,
      }));

  it('a token without tickets.write sees none; the list and the action answers carry them', async () => {
    const id = await ticket('sim:resolve');
    const readOnly = await createTestClient(s.ctx, {
      clientId: s.owner.clientId,
      apiToken: true,
      permissions: ['tickets.read'],
    });
    expect((await call('GET', `/tickets/${id}`, undefined, readOnly)).json().allowed_actions).toEqual([]);
    expect((await call('POST', `/tickets/${id}/close`, undefined, readOnly)).statusCode).toBe(403);
    const closed = await call('POST', `/tickets/${id}/close`);
    expect(closed.json().allowed_actions).toEqual(['reopen', 'rate', 'follow_up']);
    const list = (await call('GET', '/tickets?page_size=100')).json().tickets as {
      status: string;
      allowed_actions: string[];
    }[];
    expect(new Set(list.map((t) => t.status)).size).toBeGreaterThan(2);
    for (const t of list)
      expect(t.allowed_actions, t.status).toEqual(
        (await call('GET', `/tickets/${(t as unknown as { ticket_id: string }).ticket_id}`)).json()
          .allowed_actions,
      );
  });
});
