/**
 * Timers as jobs (docs/platform.md, "Timers"), on a real timer (a resolved ticket's auto-close): setting
 * a due time writes one job row with its dedupe key in the same transaction; moving the time moves the
 * job (it never runs twice); a row that reached a final state first is left alone; two runners at once
 * act once; and rows of the previous release (a due time without a job) are backfilled.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, tickets } from '../../src/db/schema/index';
import { jobDefinitions, jobKindLabel, timerDefinitions } from '../../src/modules/index';
import { autoCloseResolvedTickets, ticketAutoCloseTimer } from '../../src/modules/tickets/tickets.worker';
import { jobRegistry, runDueJobs, timersBackfillJob } from '../../src/platform/jobs/index';
import { enqueueTimersBackfill } from '../../src/platform/jobs/timers';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { eventsOf, staffHeaders } from '../org/fixtures';
import { api, openTicket, renewStaff, renewToken } from '../tickets/fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let client: TestCaller;
let staff: Awaited<ReturnType<typeof staffHeaders>>;
const DAY = 86_400_000;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_TICKET_AUTO_CLOSE_DAYS: '7' } });
  call = api(ctx);
  client = await createTestClient(ctx);
  staff = await staffHeaders(ctx);
});
afterAll(() => ctx?.close());

async function advance(ms: number) {
  ctx.clock.advance(ms);
  await renewToken(ctx, client);
  await renewStaff(ctx, staff);
}

const resolve = async (id: string) => {
  const r = await call('PATCH', `/admin/tickets/${id}`, staff.headers, { status: 'resolved' });
  expect(r.statusCode, r.body).toBe(200);
};
const timerOf = async (id: string) =>
  ctx.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.kind, 'tickets.auto_close'), eq(jobs.dedupeKey, `ticket:${id}`)));
const statusOf = async (id: string) =>
  (await ctx.db.select().from(tickets).where(eq(tickets.id, id)))[0]!.status;
async function closes(id: string) {
  return (await eventsOf(ctx, client.clientId, 'ticket.status_changed'))
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.ticket_id === id && d.current_status === 'closed').length;
}

describe('timers as jobs', () => {
  it('setting a due time writes one job row with its dedupe key, in the same transaction', async () => {
    const t = await openTicket(ctx, client);
    expect(await timerOf(t.ticket_id)).toHaveLength(0);
    await resolve(t.ticket_id);
    const [job] = await timerOf(t.ticket_id);
    expect(job).toMatchObject({
      kind: 'tickets.auto_close',
      dedupeKey: `ticket:${t.ticket_id}`,
      status: 'pending',
      clientId: client.clientId,
      payload: { ticketId: t.ticket_id },
    });
    expect(job!.runAt.getTime()).toBe(ctx.clock.now().getTime() + 7 * DAY);
    // Staff see it under a readable name.
    expect(jobKindLabel('tickets.auto_close')).toBe('Ticket auto-close');
    expect(timerDefinitions.map((d) => d.kind)).toContain('tickets.auto_close');
    expect(jobDefinitions.map((d) => d.kind)).toContain('timers.backfill');
  });

  it('a moved due time moves the job: one row, and the ticket closes once, at the new time', async () => {
    const t = await openTicket(ctx, client);
    await resolve(t.ticket_id);
    await advance(5 * DAY);
    // A client message reopens it (the timer goes), staff resolve it again (a new time).
    await call('POST', `/tickets/${t.ticket_id}/messages`, client.headers, { body: 'still late' });
    expect(await timerOf(t.ticket_id)).toHaveLength(0);
    await resolve(t.ticket_id);
    const rows = await timerOf(t.ticket_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.runAt.getTime()).toBe(ctx.clock.now().getTime() + 7 * DAY);

    // Past the first due time: nothing closes.
    await advance(3 * DAY);
    await autoCloseResolvedTickets(ctx.deps);
    expect(await statusOf(t.ticket_id)).toBe('resolved');
    await advance(4 * DAY);
    expect(await autoCloseResolvedTickets(ctx.deps)).toBeGreaterThanOrEqual(1);
    expect(await statusOf(t.ticket_id)).toBe('closed');
    expect(await autoCloseResolvedTickets(ctx.deps)).toBe(0);
    expect(await closes(t.ticket_id)).toBe(1);
    expect((await timerOf(t.ticket_id))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('a time set again while its job runs keeps the job pending at the new time', async () => {
    const t = await openTicket(ctx, client);
    await resolve(t.ticket_id);
    await advance(7 * DAY);
    // A runner claims the job (as a tick would), and the ticket is reopened and resolved meanwhile.
    let moved = false;
    const defs = jobRegistry([
      {
        ...ticketAutoCloseTimer,
        async run(deps, payload, jobCtx) {
          if (!moved) {
            moved = true;
            await call('POST', `/tickets/${t.ticket_id}/messages`, client.headers, { body: 'again' });
            await resolve(t.ticket_id);
          }
          await ticketAutoCloseTimer.run(deps, payload, jobCtx);
        },
      },
    ]);
    await runDueJobs(ctx.deps, defs, { onlyDefinedKinds: true });
    expect(await statusOf(t.ticket_id)).toBe('resolved');
    const [job] = await timerOf(t.ticket_id);
    expect(job).toMatchObject({ status: 'pending' });
    expect(job!.runAt.getTime()).toBe(ctx.clock.now().getTime() + 7 * DAY);
    await advance(7 * DAY);
    expect(await autoCloseResolvedTickets(ctx.deps)).toBe(1);
    expect(await closes(t.ticket_id)).toBe(1);
  });

  it('a row finalised before its job runs is left alone', async () => {
    const t = await openTicket(ctx, client);
    await resolve(t.ticket_id);
    const [job] = await timerOf(t.ticket_id);
    // The client closes it first: the pending timer is removed.
    const closed = await call('POST', `/tickets/${t.ticket_id}/close`, client.headers);
    expect(closed.json()).toMatchObject({ status: 'closed' });
    expect(await timerOf(t.ticket_id)).toHaveLength(0);
    // A job that was already claimed (or a stale copy) finds the ticket final and does nothing.
    await ctx.db.insert(jobs).values({ ...job!, id: job!.id, runAt: ctx.clock.now() });
    await advance(8 * DAY);
    expect(await autoCloseResolvedTickets(ctx.deps)).toBe(0);
    expect((await timerOf(t.ticket_id))[0]).toMatchObject({ status: 'done' });
    expect(await closes(t.ticket_id)).toBe(1);
  });

  it('a job claimed by two runners at once acts once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await openTicket(ctx, client);
      await resolve(t.ticket_id);
      ids.push(t.ticket_id);
    }
    await advance(7 * DAY);
    const counts = await Promise.all([
      autoCloseResolvedTickets(ctx.deps),
      autoCloseResolvedTickets(ctx.deps),
      autoCloseResolvedTickets(ctx.deps),
    ]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
    for (const id of ids) {
      expect(await statusOf(id)).toBe('closed');
      expect(await closes(id)).toBe(1);
    }
  });

  it('rows of the previous release (a due time, no job) are backfilled and close at their time', async () => {
    const t = await openTicket(ctx, client);
    await resolve(t.ticket_id);
    const resolvedAt = ctx.clock.now().getTime();
    // As written by the previous release: the row is resolved, there is no job.
    await ctx.db.delete(jobs).where(eq(jobs.dedupeKey, `ticket:${t.ticket_id}`));
    await enqueueTimersBackfill(ctx.deps);
    const backfill = jobRegistry([timersBackfillJob(timerDefinitions)]);
    expect(await runDueJobs(ctx.deps, backfill, { onlyDefinedKinds: true })).toBe(1);
    expect(await timerOf(t.ticket_id)).toHaveLength(1);
    // Run again (the rollout pass an hour later): no second job, the first is not moved.
    await advance(3_600_000);
    expect(await runDueJobs(ctx.deps, backfill, { onlyDefinedKinds: true })).toBe(1);
    expect(await timerOf(t.ticket_id)).toHaveLength(1);
    // Due at the ticket's own time (resolved_at + SVC_TICKET_AUTO_CLOSE_DAYS).
    expect((await timerOf(t.ticket_id))[0]!.runAt.getTime()).toBe(resolvedAt + 7 * DAY);
    expect(await autoCloseResolvedTickets(ctx.deps)).toBe(0);
    await advance(7 * DAY);
    expect(await autoCloseResolvedTickets(ctx.deps)).toBe(1);
    expect(await statusOf(t.ticket_id)).toBe('closed');
  });

  it('a timer a node of the previous release buried (no handler for a new kind) is revived by the backfill', async () => {
    const buried = await openTicket(ctx, client);
    const failed = await openTicket(ctx, client);
    await resolve(buried.ticket_id);
    await resolve(failed.ticket_id);
    const resolvedAt = ctx.clock.now().getTime();
    // The previous release's runner claimed the first one and knew no such kind; the second one's
    // handler failed to the end.
    const bury = (id: string, error: string) =>
      ctx.db
        .update(jobs)
        .set({ status: 'dead', attempts: 1, lastError: error, finishedAt: ctx.clock.now() })
        .where(eq(jobs.dedupeKey, `ticket:${id}`));
    await bury(buried.ticket_id, 'no handler for job kind tickets.auto_close');
    await bury(failed.ticket_id, 'boom');
    await enqueueTimersBackfill(ctx.deps);
    await runDueJobs(ctx.deps, jobRegistry([timersBackfillJob(timerDefinitions)]), {
      onlyDefinedKinds: true,
    });
    const [revived] = await timerOf(buried.ticket_id);
    expect(revived).toMatchObject({ status: 'pending', lastError: null, finishedAt: null });
    expect(revived!.runAt.getTime()).toBe(resolvedAt + 7 * DAY);
    expect(revived!.maxAttempts).toBeGreaterThan(revived!.attempts);
    expect((await timerOf(failed.ticket_id))[0]).toMatchObject({ status: 'dead', lastError: 'boom' });
    await advance(7 * DAY);
    await autoCloseResolvedTickets(ctx.deps);
    expect(await statusOf(buried.ticket_id)).toBe('closed');
  });
});
