/**
 * Support tickets end to end over the API: every row of the status table, the spec's three 400
 * messages and the two others, numbers per client, lists, CCs and emails, events, activity,
 * notifications, internal notes kept off client routes, auto-close, cross-client 404s.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityLogs, notifications, tickets } from '../../src/db/schema/index';
import { ticketReplyEmailJob } from '../../src/modules/tickets/ticket-email.service';
import { autoCloseResolvedTickets } from '../../src/modules/tickets/tickets.worker';
import { createTestApp, type MemoryMailer, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { eventsOf, staffHeaders } from '../org/fixtures';
import { api, openTicket, renewStaff, renewToken } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;
let dev: TestCaller;
let other: TestCaller;
let staff: Record<string, string>;
let staffLogin: Awaited<ReturnType<typeof staffHeaders>>;
const DAY = 86_400_000;

/** Moves the clock and renews every token (tokens live 30 minutes). */
async function advance(ms: number, ...extra: TestCaller[]) {
  ctx.clock.advance(ms);
  for (const c of [owner, dev, other, ...extra]) await renewToken(ctx, c);
  await renewStaff(ctx, staffLogin);
}

beforeAll(async () => {
  ctx = await createTestApp({
    env: { SVC_TICKET_AUTO_CLOSE_DAYS: '7', SVC_TICKET_REOPEN_WINDOW_DAYS: '30' },
  });
  call = api(ctx);
  owner = await createTestClient(ctx, { role: 'owner' });
  dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
  other = await createTestClient(ctx);
  staffLogin = await staffHeaders(ctx);
  staff = staffLogin.headers;
});
afterAll(() => ctx.close());

const staffReply = (id: string, payload: Record<string, unknown>) =>
  call('POST', `/admin/tickets/${id}/messages`, staff, payload);
const clientReply = (caller: TestCaller, id: string, body = 'More details') =>
  call('POST', `/tickets/${id}/messages`, caller.headers, { body });
const statusOf = async (id: string) => (await call('GET', `/tickets/${id}`, dev.headers)).json().status;

async function statusEvents(clientId: string, ticketId: string) {
  return (await eventsOf(ctx, clientId, 'ticket.status_changed'))
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.ticket_id === ticketId)
    .map((d) => `${d.previous_status}->${d.current_status}:${d.actor_type}`);
}

describe('opening tickets', () => {
  it('numbers tickets per client (#1, #2, …) and records who opened them', async () => {
    const a = await openTicket(ctx, dev, { cc_emails: ['Finance@Example.com', 'finance@example.com'] });
    const b = await openTicket(ctx, owner, {
      priority: 'urgent',
      references: [{ type: 'transaction', id: 'tx_1' }],
    });
    const c = await openTicket(ctx, other);
    expect([a.number, b.number, c.number]).toEqual([1, 2, 1]);
    expect(a).toMatchObject({
      number_display: '#1',
      status: 'open',
      priority: 'normal',
      cc_emails: ['finance@example.com'],
      created_by: { actor_type: 'client_user', account_id: dev.accountId },
      message_count: 1,
      last_message_by: 'client',
      follow_up_of: null,
    });
    expect(b).toMatchObject({ priority: 'urgent', references: [{ type: 'transaction', id: 'tx_1' }] });
    expect(await statusEvents(owner.clientId, a.ticket_id)).toEqual(['null->open:client_user']);
    const created = (await eventsOf(ctx, owner.clientId, 'ticket.message.created')).find(
      (e) => (e.data as { ticket_id: string }).ticket_id === a.ticket_id,
    );
    expect(created?.data).toMatchObject({ number: 1, author_type: 'client' });
    expect(created?.data).not.toHaveProperty('body');
    const [entry] = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, a.ticket_id), eq(activityLogs.action, 'ticket.created')));
    expect(entry).toMatchObject({ actorType: 'client_user', actorAccountId: dev.accountId });
  });

  it('hands out distinct numbers to concurrent creations', async () => {
    const c = await createTestClient(ctx);
    const made = await Promise.all(Array.from({ length: 8 }, () => openTicket(ctx, c)));
    expect(made.map((t) => t.number).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('validates the body with the contract format', async () => {
    const bad = await call('POST', '/tickets', dev.headers, {
      subject: '',
      body: 'x',
      category: 'weather',
      cc_emails: ['a@x.io', 'b@x.io', 'c@x.io', 'd@x.io', 'e@x.io', 'f@x.io'],
    });
    expect(bad.statusCode).toBe(422);
    const locs = (bad.json().detail as { loc: string[] }[]).map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.subject', 'body.category', 'body.cc_emails']));
    const blank = await call('POST', '/tickets', dev.headers, {
      subject: '   ',
      body: 'x',
      category: 'other',
    });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().detail[0].loc).toEqual(['body', 'subject']);
  });

  it('lists newest first with filters, q over subject, number and message text, and the page rules', async () => {
    const c = await createTestClient(ctx);
    const t1 = await openTicket(ctx, c, { subject: 'Webhook signatures fail', category: 'technical' });
    ctx.clock.advance(1000);
    const t2 = await openTicket(ctx, c, {
      subject: 'Invoice question',
      category: 'billing',
      priority: 'high',
    });
    await clientReply(c, t1.ticket_id, 'The HMAC header looks truncated');
    const list = (q: string) => call('GET', `/tickets?${q}`, c.headers).then((r) => r.json());
    expect((await list('')).tickets.map((t: { ticket_id: string }) => t.ticket_id)).toEqual([
      t2.ticket_id,
      t1.ticket_id,
    ]);
    expect((await list('category=billing')).pagination).toEqual({
      total: 1,
      page: 1,
      page_size: 20,
      total_pages: 1,
    });
    expect((await list('priority=high')).tickets[0].ticket_id).toBe(t2.ticket_id);
    expect((await list('q=hmac')).tickets.map((t: { ticket_id: string }) => t.ticket_id)).toEqual([
      t1.ticket_id,
    ]);
    expect((await list('q=%232')).tickets.map((t: { ticket_id: string }) => t.ticket_id)).toEqual([
      t2.ticket_id,
    ]);
    expect((await list('q=INVOICE')).tickets).toHaveLength(1);
    expect((await list('page=2&page_size=1')).tickets[0].ticket_id).toBe(t1.ticket_id);
    expect((await call('GET', '/tickets?page_size=201', c.headers)).statusCode).toBe(422);
    const empty = await call('GET', '/tickets?q=%20%20', c.headers);
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].loc).toEqual(['query', 'q']);
  });
});

describe('the status table, row by row', () => {
  it('open -> awaiting_client on a staff public reply (the default), emailed to the creator and CCs', async () => {
    const t = await openTicket(ctx, dev, { cc_emails: ['cc1@example.com', 'cc2@example.com'] });
    const reply = await staffReply(t.ticket_id, { body: 'Could you send the payout reference?' });
    expect(reply.statusCode).toBe(201);
    expect(reply.json()).toMatchObject({ author_type: 'staff', internal: false });
    expect(await statusOf(t.ticket_id)).toBe('awaiting_client');
    const mailer = ctx.mailer as MemoryMailer;
    const before = mailer.sent.length;
    expect(await runJobs(ctx, ticketReplyEmailJob)).toBe(3);
    const sent = mailer.sent.slice(before);
    expect(sent.map((m) => m.to).sort()).toEqual(
      ['cc1@example.com', 'cc2@example.com', (await emailOf(dev)).toLowerCase()].sort(),
    );
    expect(sent[0]!.subject).toBe(`[Ticket #${t.number}] Re: Payouts are late`);
    expect(sent[0]!.text).toContain('Could you send the payout reference?');
    expect(await runJobs(ctx, ticketReplyEmailJob)).toBe(0);
    expect(await statusEvents(owner.clientId, t.ticket_id)).toEqual([
      'null->open:client_user',
      'open->awaiting_client:service_internal',
    ]);
    // The reply notifies the creator and the owner (notification fan-out rows).
    const rows = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, owner.clientId), eq(notifications.category, 'tickets')));
    const targets = rows
      .filter((n) => n.title === `Support replied to ticket #${t.number}`)
      .map((n) => n.accountId);
    expect(targets.sort()).toEqual([dev.accountId, owner.accountId].sort());
  });

  it('awaiting_client -> open and resolved -> open on a client message', async () => {
    const t = await openTicket(ctx, dev);
    await staffReply(t.ticket_id, { body: 'Which bank?' });
    expect((await clientReply(dev, t.ticket_id)).statusCode).toBe(201);
    expect(await statusOf(t.ticket_id)).toBe('open');
    await staffReply(t.ticket_id, { body: 'Fixed', status: 'resolved' });
    expect(await statusOf(t.ticket_id)).toBe('resolved');
    await clientReply(dev, t.ticket_id, 'Still broken');
    expect(await statusOf(t.ticket_id)).toBe('open');
    expect(await statusEvents(owner.clientId, t.ticket_id)).toEqual([
      'null->open:client_user',
      'open->awaiting_client:service_internal',
      'awaiting_client->open:client_user',
      'open->resolved:service_internal',
      'resolved->open:client_user',
    ]);
  });

  it('open -> resolved and awaiting_client -> resolved when staff resolve; the resolution notifies', async () => {
    const a = await openTicket(ctx, dev);
    const patched = await call('PATCH', `/admin/tickets/${a.ticket_id}`, staff, { status: 'resolved' });
    expect(patched.json()).toMatchObject({ status: 'resolved' });
    expect(patched.json().resolved_at).not.toBeNull();
    const b = await openTicket(ctx, dev);
    await staffReply(b.ticket_id, { body: 'Waiting for you' });
    await staffReply(b.ticket_id, { body: 'Done', status: 'resolved' });
    expect(await statusOf(b.ticket_id)).toBe('resolved');
    const resolved = await ctx.db
      .select()
      .from(notifications)
      .where(eq(notifications.title, `Ticket #${b.number} was resolved`));
    expect(resolved.map((n) => n.accountId).sort()).toEqual([dev.accountId, owner.accountId].sort());
    // A resolving reply is announced once.
    expect(
      await ctx.db
        .select()
        .from(notifications)
        .where(eq(notifications.title, `Support replied to ticket #${b.number}`)),
    ).toHaveLength(2); // the first (awaiting_client) reply only: creator + owner
  });

  it('resolved -> closed by POST close; anything else answers the spec message', async () => {
    const t = await openTicket(ctx, dev);
    const refused = await call('POST', `/tickets/${t.ticket_id}/close`, dev.headers);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ detail: 'Only resolved tickets can be closed by the client' });
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'resolved' });
    const closed = await call('POST', `/tickets/${t.ticket_id}/close`, dev.headers);
    expect(closed.json()).toMatchObject({ status: 'closed' });
    expect(closed.json().closed_at).toBe(ctx.clock.now().toISOString());
    const again = await call('POST', `/tickets/${t.ticket_id}/close`, dev.headers);
    expect(again.json()).toEqual({ detail: 'Only resolved tickets can be closed by the client' });
  });

  it('resolved -> closed after SVC_TICKET_AUTO_CLOSE_DAYS without a client message (automatic actor)', async () => {
    const c = await createTestClient(ctx);
    const t = await openTicket(ctx, c);
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'resolved' });
    await advance(7 * DAY - 1000, c);
    await autoCloseResolvedTickets(ctx.deps);
    expect((await call('GET', `/tickets/${t.ticket_id}`, c.headers)).json().status).toBe('resolved');
    ctx.clock.advance(2000);
    expect(await autoCloseResolvedTickets(ctx.deps)).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `/tickets/${t.ticket_id}`, c.headers)).json().status).toBe('closed');
    expect(await statusEvents(c.clientId, t.ticket_id)).toContain('resolved->closed:null');
    const [entry] = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, t.ticket_id), eq(activityLogs.action, 'ticket.closed')));
    expect(entry).toMatchObject({ actorType: 'system' });
    // A client message restarts the clock: a reopened-then-resolved ticket waits again from its new resolution.
    const u = await openTicket(ctx, c);
    await call('PATCH', `/admin/tickets/${u.ticket_id}`, staff, { status: 'resolved' });
    await advance(5 * DAY, c);
    await clientReply(c, u.ticket_id);
    await call('PATCH', `/admin/tickets/${u.ticket_id}`, staff, { status: 'resolved' });
    await advance(5 * DAY, c);
    await autoCloseResolvedTickets(ctx.deps);
    expect((await call('GET', `/tickets/${u.ticket_id}`, c.headers)).json().status).toBe('resolved');
  });

  it('any status but closed -> closed when staff close', async () => {
    const open = await openTicket(ctx, dev);
    const awaiting = await openTicket(ctx, dev);
    await staffReply(awaiting.ticket_id, { body: 'ping' });
    const resolved = await openTicket(ctx, dev);
    await call('PATCH', `/admin/tickets/${resolved.ticket_id}`, staff, { status: 'resolved' });
    for (const t of [open, awaiting, resolved]) {
      const r = await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'closed' });
      expect(r.json()).toMatchObject({ status: 'closed' });
    }
    const again = await call('PATCH', `/admin/tickets/${open.ticket_id}`, staff, { status: 'open' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ detail: "Ticket cannot move from 'closed' to 'open'" });
    const reply = await staffReply(open.ticket_id, { body: 'hello?' });
    expect(reply.statusCode).toBe(400);
  });

  it('closed -> open by reopen within the window; outside it only a follow-up remains', async () => {
    const t = await openTicket(ctx, dev);
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'closed' });
    // The spec's message for a reply inside the window.
    const inside = await clientReply(dev, t.ticket_id);
    expect(inside.statusCode).toBe(400);
    expect(inside.json()).toEqual({ detail: 'Closed tickets must be reopened before replying' });
    // Following up needs a closed ticket.
    const open = await openTicket(ctx, dev);
    const badFollow = await call('POST', '/tickets', dev.headers, {
      subject: 'x',
      body: 'y',
      category: 'other',
      follow_up_of: open.ticket_id,
    });
    expect(badFollow.statusCode).toBe(400);
    expect(badFollow.json()).toEqual({ detail: 'Only closed tickets can be followed up' });
    // Reopen inside the window.
    await advance(29 * DAY);
    const reopened = await call('POST', `/tickets/${t.ticket_id}/reopen`, dev.headers);
    expect(reopened.json()).toMatchObject({ status: 'open', closed_at: null });
    const notClosed = await call('POST', `/tickets/${t.ticket_id}/reopen`, dev.headers);
    expect(notClosed.json()).toEqual({ detail: 'Only closed tickets can be reopened' });
    // Close again and let the window pass.
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'closed' });
    await advance(30 * DAY + 1000);
    const late = await call('POST', `/tickets/${t.ticket_id}/reopen`, dev.headers);
    expect(late.statusCode).toBe(400);
    expect(late.json()).toEqual({ detail: 'Ticket can no longer be reopened; create a follow-up ticket' });
    const lateReply = await clientReply(dev, t.ticket_id);
    expect(lateReply.json()).toEqual({ detail: 'Closed tickets cannot receive new client replies' });
    const follow = await call('POST', '/tickets', dev.headers, {
      subject: 'Still late',
      body: 'See the earlier ticket',
      category: 'payments',
      follow_up_of: t.ticket_id,
    });
    expect(follow.statusCode).toBe(201);
    expect(follow.json().follow_up_of).toBe(t.ticket_id);
    expect(await statusEvents(owner.clientId, t.ticket_id)).toEqual([
      'null->open:client_user',
      'open->closed:service_internal',
      'closed->open:client_user',
      'open->closed:service_internal',
    ]);
  });

  it('staff may put a ticket back to open (our added staff row); other moves are refused', async () => {
    const t = await openTicket(ctx, dev);
    await staffReply(t.ticket_id, { body: 'waiting' });
    expect(
      (await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'open' })).json().status,
    ).toBe('open');
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'resolved' });
    const refused = await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, {
      status: 'awaiting_client',
    });
    expect(refused.json()).toEqual({ detail: "Ticket cannot move from 'resolved' to 'awaiting_client'" });
    // A reply on a resolved ticket keeps it resolved when no status is given.
    expect((await staffReply(t.ticket_id, { body: 'FYI' })).statusCode).toBe(201);
    expect(await statusOf(t.ticket_id)).toBe('resolved');
  });
});

describe('client edits and satisfaction', () => {
  it('changes priority and CCs until closed; rates only resolved or closed tickets', async () => {
    const t = await openTicket(ctx, dev);
    const p = await call('PATCH', `/tickets/${t.ticket_id}`, dev.headers, {
      priority: 'high',
      cc_emails: ['X@y.io'],
    });
    expect(p.json()).toMatchObject({ priority: 'high', cc_emails: ['x@y.io'] });
    expect((await call('PATCH', `/tickets/${t.ticket_id}`, dev.headers, {})).statusCode).toBe(422);
    const early = await call('POST', `/tickets/${t.ticket_id}/satisfaction`, dev.headers, { rating: 'good' });
    expect(early.json()).toEqual({ detail: 'Satisfaction can be rated only on resolved or closed tickets' });
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'resolved' });
    const rated = await call('POST', `/tickets/${t.ticket_id}/satisfaction`, dev.headers, {
      rating: 'bad',
      comment: 'Slow',
    });
    expect(rated.json().satisfaction).toMatchObject({ rating: 'bad', comment: 'Slow' });
    await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, { status: 'closed' });
    const afterClose = await call('PATCH', `/tickets/${t.ticket_id}`, dev.headers, { priority: 'low' });
    expect(afterClose.json()).toEqual({ detail: 'Closed tickets cannot be changed' });
    expect(
      (await call('POST', `/tickets/${t.ticket_id}/satisfaction`, dev.headers, { rating: 'good' }))
        .statusCode,
    ).toBe(200);
  });
});

describe('internal notes and isolation', () => {
  it('keeps internal notes off every client route, event, email and client search', async () => {
    const t = await openTicket(ctx, dev);
    const eventsBefore = (await eventsOf(ctx, owner.clientId, 'ticket.message.created')).length;
    const note = await staffReply(t.ticket_id, {
      body: 'Customer is on the watchlist zebra',
      internal: true,
    });
    expect(note.statusCode).toBe(201);
    expect(note.json()).toMatchObject({ internal: true, emails: [] });
    const withStatus = await staffReply(t.ticket_id, { body: 'x', internal: true, status: 'resolved' });
    expect(withStatus.statusCode).toBe(422);
    const msgs = (await call('GET', `/tickets/${t.ticket_id}/messages`, dev.headers)).json();
    expect(msgs.messages).toHaveLength(1);
    expect(JSON.stringify(msgs)).not.toContain('zebra');
    expect((await call('GET', '/tickets?q=zebra', dev.headers)).json().tickets).toHaveLength(0);
    expect((await call('GET', `/tickets/${t.ticket_id}`, dev.headers)).json()).toMatchObject({
      message_count: 1,
      status: 'open',
    });
    expect((await eventsOf(ctx, owner.clientId, 'ticket.message.created')).length).toBe(eventsBefore);
    const logs = await ctx.db.select().from(activityLogs).where(eq(activityLogs.targetId, t.ticket_id));
    expect(JSON.stringify(logs)).not.toContain('zebra');
    // Staff see it, and find it.
    const detail = (await call('GET', `/admin/tickets/${t.ticket_id}`, staff)).json();
    expect(detail.messages.map((m: { internal: boolean }) => m.internal)).toEqual([false, true]);
    expect((await call('GET', '/admin/tickets?q=zebra', staff)).json().tickets[0].ticket_id).toBe(
      t.ticket_id,
    );
  });

  it('answers 404 for another client\u2019s ticket on every client route', async () => {
    const t = await openTicket(ctx, other);
    const id = t.ticket_id;
    for (const [method, url, body] of [
      ['GET', `/tickets/${id}`],
      ['PATCH', `/tickets/${id}`, { priority: 'low' }],
      ['GET', `/tickets/${id}/messages`],
      ['POST', `/tickets/${id}/messages`, { body: 'hi' }],
      ['POST', `/tickets/${id}/close`],
      ['POST', `/tickets/${id}/reopen`],
      ['POST', `/tickets/${id}/satisfaction`, { rating: 'good' }],
      ['GET', `/tickets/${id}/attachments/${id}`],
    ] as const) {
      const r = await call(method, url, dev.headers, body);
      expect([r.statusCode, r.json()], `${method} ${url}`).toEqual([404, { detail: 'Ticket not found' }]);
    }
    const follow = await call('POST', '/tickets', dev.headers, {
      subject: 'x',
      body: 'y',
      category: 'other',
      follow_up_of: id,
    });
    expect(follow.json()).toEqual({ detail: 'Ticket not found' });
    expect(
      (await call('GET', '/tickets', dev.headers))
        .json()
        .tickets.map((x: { ticket_id: string }) => x.ticket_id),
    ).not.toContain(id);
  });

  it('marks the deployment environment in the staff queue and filters it', async () => {
    const t = await openTicket(ctx, other, { priority: 'urgent' });
    const queue = (
      await call('GET', `/admin/tickets?client_id=${other.clientId}&priority=urgent`, staff)
    ).json();
    expect(queue.tickets[0]).toMatchObject({
      ticket_id: t.ticket_id,
      environment: 'sandbox',
      client_id: other.clientId,
    });
    const staffId = (await ctx.db.select().from(tickets).where(eq(tickets.id, t.ticket_id)))[0]!;
    expect(staffId.environment).toBe('sandbox');
    const bad = await call('PATCH', `/admin/tickets/${t.ticket_id}`, staff, {
      assignee_staff_id: t.ticket_id,
    });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ detail: 'Staff account not found' });
    expect((await call('GET', `/admin/tickets/${t.ticket_id}`, dev.headers)).statusCode).toBe(401);
  });
});

async function emailOf(caller: TestCaller): Promise<string> {
  const { accounts } = await import('../../src/db/schema/index');
  const [a] = await ctx.db.select().from(accounts).where(eq(accounts.id, caller.accountId));
  return a!.email;
}
