/**
 * Payment schedules' timers as jobs (docs/platform.md, "Timers"): an instalment's next link, its
 * grace end and a pending link to cancel are job rows written in the transaction that sets the due
 * time (creation, PATCH, issue, failure, cancel), moved rather than duplicated, removed when the
 * instalment leaves the state they wait on; a handler that finds its row moved does nothing (or
 * moves its timer to the row's time); rows of the previous release (a due time, no job) are
 * backfilled. The jobs runner, not a sweep, runs them.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { jobs, paymentScheduleInstalments, transactions } from '../../src/db/schema/index';
import { jobDefinitions, jobKindLabel, timerDefinitions } from '../../src/modules/index';
import { jobRegistry, runDueJobs, timersBackfillJob } from '../../src/platform/jobs/index';
import { enqueueTimersBackfill } from '../../src/platform/jobs/timers';
import { runJobs } from '../helpers/jobs';
import { paymentApp } from '../helpers/suites';
import { advance, createSchedule, DAY, getSchedule, instalmentAction, settle } from './fixtures';

const suite = paymentApp({ app: { env: { SVC_SCHEDULE_MAX_LINKS_PER_INSTALMENT: '3' } } });

const KINDS = ['schedules.instalment_issue', 'schedules.instalment_overdue', 'schedules.intent_cancel'];
const timersOf = async (instalmentId: string) =>
  suite.ctx.db
    .select()
    .from(jobs)
    .where(and(inArray(jobs.kind, KINDS), eq(jobs.dedupeKey, `instalment:${instalmentId}`)))
    .orderBy(jobs.kind);
const timer = async (instalmentId: string, kind: string) =>
  (await timersOf(instalmentId)).find((j) => j.kind === kind);
const rowOf = async (instalmentId: string) =>
  (
    await suite.ctx.db
      .select()
      .from(paymentScheduleInstalments)
      .where(eq(paymentScheduleInstalments.id, instalmentId))
  )[0]!;
/** As the jobs runner does: every due job of every kind (timers among them). */
const runner = () => runJobs(suite.ctx);
const to = (iso: string) =>
  advance(suite.ctx, suite.w, new Date(iso).getTime() - suite.ctx.clock.now().getTime());

describe('payment schedule timers', () => {
  it('creation writes one issue timer per instalment at issue_at; PATCH moves it; the runner issues at that time', async () => {
    expect(timerDefinitions.map((d) => d.kind)).toEqual(expect.arrayContaining(KINDS));
    expect(jobKindLabel('schedules.instalment_issue')).toBe('Instalment payment link');
    expect(jobKindLabel('schedules.instalment_overdue')).toBe('Instalment overdue');
    expect(jobKindLabel('schedules.intent_cancel')).toBe('Instalment link cancel');

    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '10.00', due_date: '2026-02-10' },
        { amount: '10.00', due_date: '2026-03-10' },
      ],
      issue_days_before: 3,
      grace_days: 2,
    });
    const [a, b] = s.instalments.map((i) => i.instalment_id) as [string, string];
    for (const [id, issueAt] of [
      [a, '2026-02-07T00:00:00.000Z'],
      [b, '2026-03-07T00:00:00.000Z'],
    ] as const) {
      const rows = await timersOf(id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        kind: 'schedules.instalment_issue',
        status: 'pending',
        clientId: suite.w.caller.clientId,
        payload: { instalmentId: id },
      });
      expect(rows[0]!.runAt.toISOString()).toBe(issueAt);
    }

    // PATCH of the due date moves the same job (no second row).
    const patched = await suite.ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/payment-schedules/${s.schedule_id}/instalments/${b}`,
      headers: suite.w.caller.headers,
      payload: { due_date: '2026-03-20' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await timersOf(b)).toHaveLength(1);
    expect((await timer(b, 'schedules.instalment_issue'))!.runAt.toISOString()).toBe(
      '2026-03-17T00:00:00.000Z',
    );

    // Nothing is due before issue_at.
    await to('2026-02-06T23:59:59Z');
    await runner();
    expect((await rowOf(a)).status).toBe('scheduled');
    // At issue_at the runner issues the link: the issue timer is done, the grace timer waits at the grace end.
    await to('2026-02-07T00:00:00Z');
    await runner();
    const issued = await rowOf(a);
    expect(issued).toMatchObject({ status: 'issued', linkNumber: 1, issueDueAt: null });
    expect(await timer(a, 'schedules.instalment_issue')).toMatchObject({ status: 'done', attempts: 1 });
    const grace = (await timer(a, 'schedules.instalment_overdue'))!;
    expect(grace).toMatchObject({ status: 'pending' });
    expect(grace.runAt.toISOString()).toBe('2026-02-13T00:00:00.000Z');
    expect((await rowOf(b)).status).toBe('scheduled');

    // Paid: the grace timer goes.
    await settle(suite.ctx, suite.w, issued.transactionId!, 'completed');
    expect((await rowOf(a)).status).toBe('paid');
    expect(await timer(a, 'schedules.instalment_overdue')).toBeUndefined();
  });

  it('a failed link is re-issued by the moved issue timer; the grace end makes it overdue and cancels the pending link', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [{ amount: '7.00', due_date: '2026-04-10' }],
      issue_days_before: 0,
      grace_days: 2,
    });
    const id = s.instalments[0]!.instalment_id;
    const first = (await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now')).json()
      .instalments[0];
    expect(await timer(id, 'schedules.instalment_issue')).toBeUndefined();
    // The link fails: the issue timer is set for now, in the payment's transaction, and re-issues.
    await settle(suite.ctx, suite.w, first.transaction_id, 'rejected');
    const due = (await timer(id, 'schedules.instalment_issue'))!;
    expect(due).toMatchObject({ status: 'pending' });
    expect(due.runAt.getTime()).toBe(suite.ctx.clock.now().getTime());
    await runner();
    const second = await rowOf(id);
    expect(second).toMatchObject({ status: 'issued', linkNumber: 2 });
    expect(await timersOf(id)).toHaveLength(2);

    // The grace end passes unpaid: overdue, and the link still pending is canceled by its timer.
    await to('2026-04-12T23:59:59Z');
    await runner();
    expect((await rowOf(id)).status).toBe('issued');
    await advance(suite.ctx, suite.w, 1000);
    await runner();
    const late = await rowOf(id);
    expect(late).toMatchObject({ status: 'overdue', intentToCancel: null, intentCancelDueAt: null });
    expect(await timer(id, 'schedules.instalment_overdue')).toMatchObject({ status: 'done' });
    expect(await timer(id, 'schedules.intent_cancel')).toMatchObject({ status: 'done' });
    const [t] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, second.transactionId!));
    // The link lives until the grace end too: its own expiry timer may have finished it first.
    expect(['canceled', 'expired']).toContain(t!.status);
    expect((await getSchedule(suite.ctx, suite.w.caller, s.schedule_id)).status).toBe('past_due');
  });

  it('cancel removes the pending timers; a stale timer finds its row moved and does nothing', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '3.00', due_date: '2026-06-10' },
        { amount: '4.00', due_date: '2026-07-10' },
      ],
      issue_days_before: 0,
    });
    const [a, b] = s.instalments.map((i) => i.instalment_id) as [string, string];
    const issued = (await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now')).json()
      .instalments[0];
    const staleGrace = (await timer(a, 'schedules.instalment_overdue'))!;
    const staleIssue = (await timer(b, 'schedules.instalment_issue'))!;
    const res = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/payment-schedules/${s.schedule_id}/cancel`,
      headers: suite.w.caller.headers,
      payload: {},
    });
    expect(res.json()).toMatchObject({ status: 'canceled' });
    // The request canceled the pending link itself; nothing is left pending.
    expect(await timersOf(a)).toEqual([]);
    expect(await timersOf(b)).toEqual([]);
    const [t] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, issued.transaction_id));
    expect(t!.status).toBe('canceled');

    // Copies of the removed timers (a runner that claimed them first) run and change nothing.
    await suite.ctx.db.insert(jobs).values([staleGrace, staleIssue]);
    await to('2026-08-01T00:00:00Z');
    await runner();
    expect(await timer(a, 'schedules.instalment_overdue')).toMatchObject({ status: 'done' });
    expect(await timer(b, 'schedules.instalment_issue')).toMatchObject({ status: 'done' });
    expect((await rowOf(a)).status).toBe('canceled');
    expect(await rowOf(b)).toMatchObject({ status: 'canceled', linkNumber: 0 });
  });

  it('a timer that runs before its row is due moves to the row time', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [{ amount: '5.00', due_date: '2026-10-10' }],
      issue_days_before: 0,
    });
    const id = s.instalments[0]!.instalment_id;
    const issueAt = new Date('2026-10-10T00:00:00Z');
    // The row's time moved later by hand (as a previous release's lease did), its timer did not.
    const later = new Date(issueAt.getTime() + 2 * DAY);
    await suite.ctx.db
      .update(paymentScheduleInstalments)
      .set({ issueDueAt: later })
      .where(eq(paymentScheduleInstalments.id, id));
    await to(issueAt.toISOString());
    await runner();
    expect((await rowOf(id)).status).toBe('scheduled');
    const moved = (await timer(id, 'schedules.instalment_issue'))!;
    expect(moved).toMatchObject({ status: 'pending' });
    expect(moved.runAt.getTime()).toBe(later.getTime());
    await to(later.toISOString());
    await runner();
    expect((await rowOf(id)).status).toBe('issued');
  });

  it('rows of the previous release (due times, no jobs) are backfilled at their own times', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '6.00', due_date: '2027-01-10' },
        { amount: '6.00', due_date: '2027-02-10' },
      ],
      issue_days_before: 1,
      grace_days: 3,
    });
    const [a, b] = s.instalments.map((i) => i.instalment_id) as [string, string];
    await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now');
    // As the previous release wrote them: the rows carry their due times, there is no job.
    await suite.ctx.db.delete(jobs).where(inArray(jobs.dedupeKey, [`instalment:${a}`, `instalment:${b}`]));
    await enqueueTimersBackfill(suite.ctx.deps);
    const backfill = jobRegistry([timersBackfillJob(timerDefinitions)]);
    expect(await runDueJobs(suite.ctx.deps, backfill, { onlyDefinedKinds: true })).toBe(1);
    const grace = (await timersOf(a))!;
    expect(grace.map((j) => j.kind)).toEqual(['schedules.instalment_overdue']);
    expect(grace[0]!.runAt.toISOString()).toBe('2027-01-14T00:00:00.000Z');
    const issue = await timersOf(b);
    expect(issue.map((j) => j.kind)).toEqual(['schedules.instalment_issue']);
    expect(issue[0]!.runAt.toISOString()).toBe('2027-02-09T00:00:00.000Z');
    // The rollout pass an hour later adds nothing and moves nothing.
    await advance(suite.ctx, suite.w, 3_600_000);
    expect(await runDueJobs(suite.ctx.deps, backfill, { onlyDefinedKinds: true })).toBe(1);
    expect(await timersOf(a)).toHaveLength(1);
    expect(await timersOf(b)).toHaveLength(1);
    await to('2027-01-14T00:00:00Z');
    await runner();
    expect((await rowOf(a)).status).toBe('overdue');
    await to('2027-02-09T00:00:00Z');
    await runner();
    expect((await rowOf(b)).status).toBe('issued');
    expect(jobDefinitions.map((d) => d.kind)).toEqual(expect.arrayContaining(KINDS));
  });
});
