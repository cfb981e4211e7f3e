/**
 * POST /sandbox/tickets/{id}/simulate: a merchant tries the support loop without staff tools. The
 * simulated agent goes through the staff reply's code path, so the status move, the events, the
 * email, the notifications and the activity entry are the real ones; production answers 404.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityLogs, notifications } from '../../src/db/schema/index';
import { ticketReplyEmailJob } from '../../src/modules/tickets/ticket-email.service';
import { createTestApp, type MemoryMailer, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { eventsOf } from '../org/fixtures';
import { api, openTicket } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;
let dev: TestCaller;
let other: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  owner = await createTestClient(ctx, { role: 'owner' });
  dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
  other = await createTestClient(ctx);
});
afterAll(() => ctx.close());

const simulate = (caller: TestCaller, id: string, payload: Record<string, unknown>) =>
  call('POST', `/sandbox/tickets/${id}/simulate`, caller.headers, payload);

describe('sandbox ticket simulator', () => {
  it('agent_reply: a public staff reply (awaiting_client, event, email, notifications, activity)', async () => {
    const t = await openTicket(ctx, dev);
    const res = await simulate(dev, t.ticket_id, { action: 'agent_reply', body: 'Which payout reference?' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ticket_id: t.ticket_id, status: 'awaiting_client', message_count: 2 });

    const messages = (await call('GET', `/tickets/${t.ticket_id}/messages`, dev.headers)).json();
    expect(messages.messages.at(-1)).toMatchObject({
      author_type: 'staff',
      body: 'Which payout reference?',
    });
    const statuses = (await eventsOf(ctx, owner.clientId, 'ticket.status_changed'))
      .map((e) => e.data as Record<string, unknown>)
      .filter((d) => d.ticket_id === t.ticket_id)
      .map((d) => `${d.previous_status}->${d.current_status}:${d.actor_type}`);
    expect(statuses).toEqual(['null->open:client_user', 'open->awaiting_client:service_internal']);
    const created = (await eventsOf(ctx, owner.clientId, 'ticket.message.created')).filter(
      (e) => (e.data as { ticket_id: string }).ticket_id === t.ticket_id,
    );
    expect(created).toHaveLength(2);

    const mailer = ctx.mailer as MemoryMailer;
    const before = mailer.sent.length;
    expect(await runJobs(ctx, ticketReplyEmailJob)).toBe(1);
    expect(mailer.sent.slice(before)[0]!.text).toContain('Which payout reference?');

    const notified = await ctx.db
      .select()
      .from(notifications)
      .where(
        and(
          eq(notifications.clientId, owner.clientId),
          eq(notifications.title, `Support replied to ticket #${t.number}`),
        ),
      );
    expect(notified.map((n) => n.accountId).sort()).toEqual([dev.accountId, owner.accountId].sort());
    const [entry] = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, t.ticket_id), eq(activityLogs.action, 'ticket.message_created')));
    expect(entry).toMatchObject({
      clientId: owner.clientId,
      metadata: expect.objectContaining({ simulated: true }),
    });
  });

  it('resolve: a resolving reply (default text), announced once; the client can then close', async () => {
    const t = await openTicket(ctx, dev);
    const res = await simulate(dev, t.ticket_id, { action: 'resolve' });
    expect(res.json()).toMatchObject({ status: 'resolved' });
    expect(res.json().resolved_at).not.toBeNull();
    const last = (await call('GET', `/tickets/${t.ticket_id}/messages`, dev.headers)).json().messages.at(-1);
    expect(last.author_type).toBe('staff');
    expect(last.body).toMatch(/resolved/i);
    const resolved = await ctx.db
      .select()
      .from(notifications)
      .where(eq(notifications.title, `Ticket #${t.number} was resolved`));
    expect(resolved.map((n) => n.accountId).sort()).toEqual([dev.accountId, owner.accountId].sort());
    expect((await call('POST', `/tickets/${t.ticket_id}/close`, dev.headers)).json().status).toBe('closed');
    const closed = await simulate(dev, t.ticket_id, { action: 'agent_reply' });
    expect([closed.statusCode, closed.json()]).toEqual([
      400,
      { detail: 'Closed tickets cannot receive new replies; the client can open a follow-up ticket' },
    ]);
  });

  it("another client's ticket is 404; an unknown action 422", async () => {
    const t = await openTicket(ctx, dev);
    const foreign = await simulate(other, t.ticket_id, { action: 'resolve' });
    expect([foreign.statusCode, foreign.json()]).toEqual([404, { detail: 'Ticket not found' }]);
    expect((await simulate(dev, t.ticket_id, { action: 'escalate' })).statusCode).toBe(422);
  });
});

describe('production', () => {
  it('has no ticket simulator (404)', async () => {
    const prod = await createTestApp({ env: { ...PRODUCTION_ENV } });
    try {
      const c = await createTestClient(prod, { productionAccess: true });
      const t = await openTicket(prod, c);
      const res = await api(prod)('POST', `/sandbox/tickets/${t.ticket_id}/simulate`, c.headers, {
        action: 'resolve',
      });
      expect([res.statusCode, res.json()]).toEqual([404, { detail: 'Not Found' }]);
    } finally {
      await prod.close();
    }
  });
});
