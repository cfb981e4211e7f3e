/**
 * Payment schedules: creation rules (plan rounding, dates, paylink checks, the feature switch),
 * issuing at issue_at on the manual clock, payment, automatic re-issue up to the maximum, overdue
 * after grace, reissue, per-instalment edits and cancels, issue errors, payer emails through a real
 * SMTP capture, events at a real HTTP receiver, and cross-client 404s. Every row of the instalment
 * and schedule tables is exercised.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { clients, notifications, transactions } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { ScheduleMessages } from '../../src/modules/schedules/schedules.messages';
import { M } from '../../src/shared/messages';
import { createTestClient } from '../helpers/clients';
import { webhookWorld } from '../helpers/suites';
import { createPaymentWorld, setClient } from '../payments/fixtures';
import {
  advance,
  createSchedule,
  DAY,
  drainSchedules,
  getSchedule,
  instalmentAction,
  postSchedule,
  settle,
} from './fixtures';

const suite = webhookWorld({ smtp: true, app: { env: { SVC_SCHEDULE_MAX_LINKS_PER_INSTALMENT: '3' } } });
let payerEmail: string;

beforeAll(async () => {
  const { kycUsers } = await import('../../src/db/schema/index');
  const [u] = await suite.ctx.db.select().from(kycUsers).where(eq(kycUsers.id, suite.w.userId));
  payerEmail = u!.email;
});

// The test clock starts at 2026-01-15T10:00Z. Deliveries run concurrently: events are compared without order.
const sorted = (a: unknown[]) => a.map((x) => JSON.stringify(x)).sort();
describe('creation', () => {
  it('plan: total / count rounded down to cents, the remainder on the first; monthly dates clamp to month end', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      plan: { total_amount: '100.00', count: 3, interval: 'month', start_date: '2026-01-31' },
      description: 'Sofa',
    });
    expect(s).toMatchObject({
      status: 'active',
      total_amount: '100.00',
      amount_paid: '0.00',
      issue_days_before: 3,
      grace_days: 7,
    });
    expect(s.instalments.map((i) => [i.sequence, i.amount, i.due_date, i.status])).toEqual([
      [1, '33.34', '2026-01-31', 'scheduled'],
      [2, '33.33', '2026-02-28', 'scheduled'],
      [3, '33.33', '2026-03-31', 'scheduled'],
    ]);
    expect(s.instalments[0]!.issue_at).toBe('2026-01-28T00:00:00.000Z');
    const weekly = await createSchedule(suite.ctx, suite.w, {
      plan: { total_amount: '10.01', count: 4, interval: 'week', start_date: '2026-01-15' },
      issue_days_before: 5,
    });
    expect(weekly.instalments.map((i) => [i.amount, i.due_date])).toEqual([
      ['2.51', '2026-01-15'],
      ['2.50', '2026-01-22'],
      ['2.50', '2026-01-29'],
      ['2.50', '2026-02-05'],
    ]);
    // issue_at in the past becomes now.
    expect(weekly.instalments[0]!.issue_at).toBe('2026-01-15T10:00:00.000Z');
    const tiny = await postSchedule(suite.ctx, suite.w.caller, {
      project_id: suite.w.projectId,
      user_id: suite.w.userId,
      currency: 'EUR',
      plan: { total_amount: '0.03', count: 4, interval: 'week', start_date: '2026-02-01' },
    });
    expect(tiny.statusCode).toBe(422);
    expect(tiny.json().detail).toEqual([
      { loc: ['body', 'plan', 'total_amount'], msg: ScheduleMessages.planTooSmall(4), type: 'value_error' },
    ]);
  });

  it('exactly one of instalments and plan; amounts and dates checked like paylink', async () => {
    const base = { project_id: suite.w.projectId, user_id: suite.w.userId, currency: 'EUR' };
    const plan = { total_amount: '10.00', count: 2, interval: 'week', start_date: '2026-02-01' };
    for (const body of [base, { ...base, plan, instalments: [{ amount: '1.00', due_date: '2026-02-01' }] }]) {
      const res = await postSchedule(suite.ctx, suite.w.caller, body);
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([
        { loc: ['body'], msg: ScheduleMessages.instalmentsOrPlan, type: 'value_error' },
      ]);
    }
    const res = await postSchedule(suite.ctx, suite.w.caller, {
      ...base,
      instalments: [
        { amount: '1.999', due_date: '2026-01-14' },
        { amount: '0', due_date: '2026-02-01' },
        { amount: '3.00', due_date: '2026-02-01' },
      ],
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        loc: ['body', 'instalments', 0, 'amount'],
        msg: 'Amount has more decimal places than the currency allows',
        type: 'value_error',
      },
      {
        loc: ['body', 'instalments', 0, 'due_date'],
        msg: ScheduleMessages.dueDateInPast,
        type: 'value_error',
      },
      {
        loc: ['body', 'instalments', 1, 'amount'],
        msg: 'Amount must be greater than 0',
        type: 'value_error',
      },
      {
        loc: ['body', 'instalments', 2, 'due_date'],
        msg: ScheduleMessages.dueDatesIncreasing,
        type: 'value_error',
      },
    ]);
    const noKey = await postSchedule(suite.ctx, suite.w.caller, { ...base, plan }, null);
    expect(noKey.statusCode).toBe(400);
    expect(noKey.json()).toEqual({ detail: M.idempotencyKeyEmpty });
  });

  it("paylink's checks, and the payment_schedules switch", async () => {
    const o = await createPaymentWorld(suite.ctx);
    const body = { plan: { total_amount: '10.00', count: 2, interval: 'week', start_date: '2026-02-01' } };
    const post = (extra: Record<string, unknown> = {}) =>
      postSchedule(suite.ctx, o.caller, {
        project_id: o.projectId,
        user_id: o.userId,
        currency: 'EUR',
        ...body,
        ...extra,
      });
    expect((await post({ user_id: '01a2013e-0000-7000-8000-000000000000' })).json()).toEqual({
      detail: M.userNotFoundCreateFirst,
    });
    await setClient(suite.ctx, o.caller.clientId, { callbackUrl: null });
    expect((await post()).json()).toEqual({ detail: M.callbackUrlNotSet });
    await setClient(suite.ctx, o.caller.clientId, {
      callbackUrl: 'https://m.example.com/r',
      paymentLinksEnabled: false,
    });
    const off = await post();
    expect(off.statusCode).toBe(403);
    expect(off.json()).toEqual({ detail: M.paymentLinksDisabled });
    await setClient(suite.ctx, o.caller.clientId, {
      paymentLinksEnabled: true,
      features: { payment_schedules: false },
    });
    const disabled = await post();
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json()).toEqual({ detail: 'Payment schedules is disabled for this client' });
    await setClient(suite.ctx, o.caller.clientId, { features: {} });
    expect((await post()).statusCode).toBe(201);
  });

  it('an archived project takes no new schedule, but a schedule it already took still issues', async () => {
    const o = await createPaymentWorld(suite.ctx);
    const s = await createSchedule(suite.ctx, o, {
      instalments: [{ amount: '5.00', due_date: '2026-03-01' }],
    });
    const archived = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${o.projectId}/archive`,
      headers: o.caller.headers,
    });
    expect(archived.statusCode).toBe(200);
    const refused = await postSchedule(suite.ctx, o.caller, {
      project_id: o.projectId,
      user_id: o.userId,
      currency: 'EUR',
      instalments: [{ amount: '5.00', due_date: '2026-03-01' }],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ detail: PaymentMessages.projectArchived });
    const issued = await instalmentAction(suite.ctx, o.caller, s, 1, 'issue-now');
    expect(issued.statusCode, issued.body).toBe(200);
    expect((await getSchedule(suite.ctx, o.caller, s.schedule_id)).instalments[0]!.status).toBe('issued');
  });

  it("another client's schedule and instalments are 404; lists filter", async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [{ amount: '5.00', due_date: '2026-03-01' }],
    });
    const stranger = await createTestClient(suite.ctx);
    const get = await suite.ctx.app.inject({
      url: `/api/v1/payment-schedules/${s.schedule_id}`,
      headers: stranger.headers,
    });
    expect(get.statusCode).toBe(404);
    expect(get.json()).toEqual({ detail: ScheduleMessages.scheduleNotFound });
    expect((await instalmentAction(suite.ctx, stranger, s, 1, 'issue-now')).json()).toEqual({
      detail: ScheduleMessages.scheduleNotFound,
    });
    const wrong = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/payment-schedules/${s.schedule_id}/instalments/01a2013e-0000-7000-8000-000000000000/cancel`,
      headers: suite.w.caller.headers,
    });
    expect(wrong.json()).toEqual({ detail: ScheduleMessages.instalmentNotFound });
    const list = await suite.ctx.app.inject({
      url: `/api/v1/payment-schedules?user_id=${suite.w.userId}&status=active&page_size=2`,
      headers: suite.w.caller.headers,
    });
    expect(list.json().pagination.page_size).toBe(2);
    expect(
      list.json().payment_schedules.every((x: { user_id: string }) => x.user_id === suite.w.userId),
    ).toBe(true);
    const none = await suite.ctx.app.inject({ url: '/api/v1/payment-schedules', headers: stranger.headers });
    expect(none.json().pagination.total).toBe(0);
  });
});

describe('issuing, paying, re-issuing, overdue', () => {
  it('issues at issue_at on the manual clock, emails the payer the link and reminders, pays, completes', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '20.00', due_date: '2026-01-25' },
        { amount: '30.00', due_date: '2026-02-25' },
      ],
      issue_days_before: 2,
      grace_days: 1,
    });
    await drainSchedules(suite.ctx);
    expect((await getSchedule(suite.ctx, suite.w.caller, s.schedule_id)).instalments[0]!.status).toBe(
      'scheduled',
    );
    await advance(
      suite.ctx,
      suite.w,
      new Date('2026-01-23T00:00:00Z').getTime() - suite.ctx.clock.now().getTime(),
    );
    await drainSchedules(suite.ctx);
    let now = await getSchedule(suite.ctx, suite.w.caller, s.schedule_id);
    const first = now.instalments[0]!;
    expect(first).toMatchObject({ status: 'issued', link_number: 1, issue_error: null });
    expect(now.instalments[1]!.status).toBe('scheduled');
    const t = (
      await suite.ctx.db.select().from(transactions).where(eq(transactions.id, first.transaction_id!))
    )[0]!;
    expect(t).toMatchObject({ originType: 'schedule', originId: s.schedule_id, amount: '20.00' });
    // The link lives until the end of due_date + grace_days (UTC).
    expect(t.expiresAt.toISOString()).toBe('2026-01-27T00:00:00.000Z');
    const mail = await suite.smtp.waitFor(payerEmail, /due 2026-01-25/);
    expect(mail.text).toContain(first.checkout_url!);
    // Reminders: the day before and on the due date (09:00 UTC).
    await advance(
      suite.ctx,
      suite.w,
      new Date('2026-01-24T09:00:00Z').getTime() - suite.ctx.clock.now().getTime(),
    );
    await drainSchedules(suite.ctx);
    expect((await suite.smtp.waitFor(payerEmail, /due tomorrow/)).subject).toContain('due tomorrow');
    await advance(suite.ctx, suite.w, DAY);
    await drainSchedules(suite.ctx);
    expect((await suite.smtp.waitFor(payerEmail, /due today/)).text).toContain(first.checkout_url!);
    // Pay the first: paid; the second issued on time, paid: completed.
    await settle(suite.ctx, suite.w, first.transaction_id!, 'completed');
    now = await getSchedule(suite.ctx, suite.w.caller, s.schedule_id);
    expect(now.instalments[0]).toMatchObject({ status: 'paid' });
    expect(now.instalments[0]!.paid_at).not.toBeNull();
    expect(now).toMatchObject({ status: 'active', amount_paid: '20.00' });
    const issued = await instalmentAction(suite.ctx, suite.w.caller, now, 2, 'issue-now');
    expect(issued.statusCode).toBe(200);
    const second = issued.json().instalments[1];
    expect(second).toMatchObject({ status: 'issued', link_number: 1 });
    expect((await instalmentAction(suite.ctx, suite.w.caller, now, 2, 'issue-now')).json()).toEqual({
      detail: ScheduleMessages.instalmentActionNotAllowed('issued'),
    });
    await settle(suite.ctx, suite.w, second.transaction_id, 'completed');
    now = await getSchedule(suite.ctx, suite.w.caller, s.schedule_id);
    expect(now).toMatchObject({ status: 'completed', amount_paid: '50.00' });
    expect(now.completed_at).not.toBeNull();
    // Terminal schedule: writes are refused.
    const patch = await suite.ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/payment-schedules/${s.schedule_id}`,
      headers: suite.w.caller.headers,
      payload: { reminders: false },
    });
    expect(patch.json()).toEqual({ detail: ScheduleMessages.scheduleTerminal('completed') });
    // Events at a real receiver.
    expect(await suite.dispatcher.drain()).toBeGreaterThan(0);
    const got = suite.rx
      .on('/hooks')
      .map((r) => JSON.parse(r.rawBody) as { type: string; data: Record<string, unknown> });
    const mine = got.filter((e) => e.data.schedule_id === s.schedule_id);
    const scheduleEvents = mine
      .filter((e) => e.type === 'payment_schedule.status_changed')
      .map((e) => [e.data.previous_status, e.data.current_status]);
    expect(sorted(scheduleEvents)).toEqual(
      sorted([
        [null, 'active'],
        ['active', 'completed'],
      ]),
    );
    const done = mine.find(
      (e) => e.type === 'payment_schedule.status_changed' && e.data.current_status === 'completed',
    )!;
    expect(done.data).toMatchObject({
      total_amount: '50.00',
      amount_paid: '50.00',
      currency: 'EUR',
      user_id: suite.w.userId,
      business_customer_id: null,
    });
    const inst = mine.filter(
      (e) => e.type === 'payment_schedule.instalment.status_changed' && e.data.sequence === 1,
    );
    expect(sorted(inst.map((e) => [e.data.previous_status, e.data.current_status]))).toEqual(
      sorted([
        [null, 'scheduled'],
        ['scheduled', 'issued'],
        ['issued', 'paid'],
      ]),
    );
    expect(inst.find((e) => e.data.current_status === 'issued')!.data).toMatchObject({
      instalment_id: first.instalment_id,
      amount: '20.00',
      currency: 'EUR',
      due_date: '2026-01-25',
      transaction_id: first.transaction_id,
      checkout_url: first.checkout_url,
      link_number: 1,
    });
  });

  it('a failed link is re-issued up to the maximum, then overdue; reissue is refused past the maximum', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [{ amount: '9.00', due_date: '2026-02-20' }],
      issue_days_before: 0,
      grace_days: 3,
    });
    await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now');
    const ids: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const cur = (await getSchedule(suite.ctx, suite.w.caller, s.schedule_id)).instalments[0]!;
      expect(cur).toMatchObject({ status: 'issued', link_number: n });
      ids.push(cur.transaction_id!);
      await settle(suite.ctx, suite.w, cur.transaction_id!, n === 2 ? 'expired' : 'rejected');
      if (n === 1) {
        // issued with a finished link -> reissue at once (the automatic re-issue then has nothing to do).
        const re = await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'reissue');
        expect(re.statusCode).toBe(200);
        expect(re.json().instalments[0]).toMatchObject({ status: 'issued', link_number: 2 });
        const pendingLink = await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'reissue');
        expect(pendingLink.json()).toEqual({ detail: ScheduleMessages.instalmentActionNotAllowed('issued') });
      }
      await drainSchedules(suite.ctx);
    }
    expect(new Set(ids).size).toBe(3);
    const now = await getSchedule(suite.ctx, suite.w.caller, s.schedule_id);
    expect(now.instalments[0]).toMatchObject({ status: 'overdue', link_number: 3 });
    expect(now.status).toBe('past_due');
    const re = await instalmentAction(suite.ctx, suite.w.caller, now, 1, 'reissue');
    expect(re.statusCode).toBe(400);
    expect(re.json()).toEqual({ detail: ScheduleMessages.noLinksLeft(3) });
    // Re-issue events: equal previous and current status with the new transaction id.
    await suite.dispatcher.drain();
    const evs = suite.rx
      .on('/hooks')
      .map((r) => JSON.parse(r.rawBody) as { type: string; data: Record<string, unknown> })
      .filter(
        (e) =>
          e.type === 'payment_schedule.instalment.status_changed' && e.data.schedule_id === s.schedule_id,
      );
    const rows = evs.map((e) => [
      e.data.previous_status,
      e.data.current_status,
      e.data.transaction_id,
      e.data.link_number,
    ]);
    expect(sorted(rows)).toEqual(
      sorted([
        [null, 'scheduled', null, 0],
        ['scheduled', 'issued', ids[0], 1],
        ['issued', 'issued', ids[1], 2],
        ['issued', 'issued', ids[2], 3],
        ['issued', 'overdue', ids[2], 3],
      ]),
    );
    const notes = await suite.ctx.db
      .select()
      .from(notifications)
      .where(
        and(
          eq(notifications.clientId, suite.w.caller.clientId),
          eq(notifications.title, 'Instalment overdue'),
        ),
      );
    expect(notes.length).toBeGreaterThan(0);
  });

  it('grace end passes unpaid: overdue, the pending intent canceled, schedule past_due; reissue brings it back', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [{ amount: '7.00', due_date: '2026-03-10' }],
      issue_days_before: 0,
      grace_days: 2,
    });
    const issued = (await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now')).json()
      .instalments[0];
    await advance(
      suite.ctx,
      suite.w,
      new Date('2026-03-12T23:59:59Z').getTime() - suite.ctx.clock.now().getTime(),
    );
    await drainSchedules(suite.ctx);
    expect((await getSchedule(suite.ctx, suite.w.caller, s.schedule_id)).instalments[0]!.status).toBe(
      'issued',
    );
    await advance(suite.ctx, suite.w, 1000);
    await drainSchedules(suite.ctx);
    let now = await getSchedule(suite.ctx, suite.w.caller, s.schedule_id);
    expect(now.instalments[0]!.status).toBe('overdue');
    expect(now.status).toBe('past_due');
    const [t] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, issued.transaction_id));
    expect(['canceled', 'expired']).toContain(t!.status);
    const re = await instalmentAction(suite.ctx, suite.w.caller, now, 1, 'reissue');
    expect(re.statusCode).toBe(200);
    now = re.json();
    expect(now.instalments[0]).toMatchObject({ status: 'issued', link_number: 2 });
    expect(now.status).toBe('active');
  });

  it('sandbox overdue simulation; instalment cancel; every instalment canceled with none paid cancels the schedule', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '5.00', due_date: '2026-04-01' },
        { amount: '6.00', due_date: '2026-05-01' },
      ],
    });
    const sim = (seq: number) =>
      suite.ctx.app.inject({
        method: 'POST',
        url: `/api/v1/sandbox/payment-schedules/${s.schedule_id}/instalments/${s.instalments[seq - 1]!.instalment_id}/simulate`,
        headers: suite.w.caller.headers,
        payload: { action: 'overdue' },
      });
    expect((await sim(1)).json()).toEqual({
      detail: ScheduleMessages.instalmentActionNotAllowed('scheduled'),
    });
    const issued = (await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now')).json()
      .instalments[0];
    const over = await sim(1);
    expect(over.statusCode).toBe(200);
    expect(over.json()).toMatchObject({ status: 'past_due' });
    expect(over.json().instalments[0].status).toBe('overdue');
    const [t] = await suite.ctx.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, issued.transaction_id));
    expect(t!.status).toBe('canceled');
    const c1 = await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'cancel');
    expect(c1.json()).toMatchObject({ status: 'active' });
    expect(c1.json().instalments[0].status).toBe('canceled');
    expect((await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'cancel')).json()).toEqual({
      detail: ScheduleMessages.instalmentActionNotAllowed('canceled'),
    });
    const c2 = await instalmentAction(suite.ctx, suite.w.caller, s, 2, 'cancel');
    expect(c2.json()).toMatchObject({ status: 'canceled' });
  });

  it('schedule cancel: open instalments canceled (pending intents too), paid ones kept', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '1.00', due_date: '2026-06-01' },
        { amount: '2.00', due_date: '2026-07-01' },
        { amount: '3.00', due_date: '2026-08-01' },
      ],
    });
    const a = (await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now')).json().instalments[0];
    await settle(suite.ctx, suite.w, a.transaction_id, 'completed');
    const b = (await instalmentAction(suite.ctx, suite.w.caller, s, 2, 'issue-now')).json().instalments[1];
    const res = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/payment-schedules/${s.schedule_id}/cancel`,
      headers: suite.w.caller.headers,
      payload: { reason: 'Customer left' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'canceled', amount_paid: '1.00' });
    expect(res.json().instalments.map((i: { status: string }) => i.status)).toEqual([
      'paid',
      'canceled',
      'canceled',
    ]);
    const [t] = await suite.ctx.db.select().from(transactions).where(eq(transactions.id, b.transaction_id));
    expect(t!.status).toBe('canceled');
    const again = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/payment-schedules/${s.schedule_id}/cancel`,
      headers: suite.w.caller.headers,
      payload: {},
    });
    expect(again.json()).toEqual({ detail: ScheduleMessages.scheduleTerminal('canceled') });
  });

  it('an issue error keeps the instalment scheduled with issue_error, notifies, and is retried hourly', async () => {
    const o = await createPaymentWorld(suite.ctx);
    const s = await createSchedule(suite.ctx, o, {
      instalments: [{ amount: '4.00', due_date: '2026-09-01' }],
      issue_days_before: 0,
    });
    const { projects } = await import('../../src/db/schema/index');
    await suite.ctx.db.update(projects).set({ isFrozen: true }).where(eq(projects.id, o.projectId));
    const res = await instalmentAction(suite.ctx, o.caller, s, 1, 'issue-now');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: M.projectFrozen });
    let now = await getSchedule(suite.ctx, o.caller, s.schedule_id);
    expect(now.instalments[0]).toMatchObject({
      status: 'scheduled',
      issue_error: M.projectFrozen,
      link_number: 0,
    });
    const notes = await suite.ctx.db
      .select()
      .from(notifications)
      .where(eq(notifications.clientId, o.caller.clientId));
    expect(notes.some((n) => n.title === 'Instalment payment link could not be issued')).toBe(true);
    await suite.ctx.db.update(projects).set({ isFrozen: false }).where(eq(projects.id, o.projectId));
    await drainSchedules(suite.ctx);
    expect((await getSchedule(suite.ctx, o.caller, s.schedule_id)).instalments[0]!.status).toBe('scheduled');
    await advance(suite.ctx, o, 3600_000);
    await drainSchedules(suite.ctx);
    now = await getSchedule(suite.ctx, o.caller, s.schedule_id);
    expect(now.instalments[0]).toMatchObject({ status: 'issued', issue_error: null, link_number: 1 });
  });
});

describe('edits', () => {
  it('PATCH a scheduled instalment (amount, due date; total follows) and the schedule; issued ones are refused', async () => {
    await advance(suite.ctx, suite.w, 0);
    const s = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '10.00', due_date: '2026-10-01' },
        { amount: '10.00', due_date: '2026-11-01' },
        { amount: '10.00', due_date: '2026-12-01' },
      ],
    });
    const patch = (seq: number, payload: Record<string, unknown>) =>
      suite.ctx.app.inject({
        method: 'PATCH',
        url: `/api/v1/payment-schedules/${s.schedule_id}/instalments/${s.instalments[seq - 1]!.instalment_id}`,
        headers: suite.w.caller.headers,
        payload,
      });
    const ok = await patch(2, { amount: '12.5', due_date: '2026-11-15' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ total_amount: '32.50' });
    expect(ok.json().instalments[1]).toMatchObject({
      amount: '12.50',
      due_date: '2026-11-15',
      issue_at: '2026-11-12T00:00:00.000Z',
    });
    const order = await patch(2, { due_date: '2026-12-01' });
    expect(order.json().detail[0]).toMatchObject({
      loc: ['body', 'due_date'],
      msg: ScheduleMessages.dueDateOrder,
    });
    const precision = await patch(2, { amount: '1.001' });
    expect(precision.json().detail[0]).toMatchObject({ loc: ['body', 'amount'] });
    await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now');
    expect((await patch(1, { amount: '1.00' })).json()).toEqual({
      detail: ScheduleMessages.instalmentActionNotAllowed('issued'),
    });
    const meta = await suite.ctx.app.inject({
      method: 'PATCH',
      url: `/api/v1/payment-schedules/${s.schedule_id}`,
      headers: suite.w.caller.headers,
      payload: { description: 'New text', delivery: 'none', metadata: { plan: 'gold' } },
    });
    expect(meta.json()).toMatchObject({
      description: 'New text',
      delivery: 'none',
      metadata: { plan: 'gold' },
    });
    const [c] = await suite.ctx.db.select().from(clients).where(eq(clients.id, suite.w.caller.clientId));
    expect(c).toBeDefined();
  });
});

describe('schedule table: from past_due', () => {
  it('past_due -> completed (the overdue instalment canceled, the other paid) and past_due -> canceled (POST cancel)', async () => {
    await advance(suite.ctx, suite.w, 0);
    const simulateOverdue = (
      s: { schedule_id: string; instalments: { instalment_id: string }[] },
      seq: number,
    ) =>
      suite.ctx.app.inject({
        method: 'POST',
        url: `/api/v1/sandbox/payment-schedules/${s.schedule_id}/instalments/${s.instalments[seq - 1]!.instalment_id}/simulate`,
        headers: suite.w.caller.headers,
        payload: { action: 'overdue' },
      });
    const a = await createSchedule(suite.ctx, suite.w, {
      instalments: [
        { amount: '3.00', due_date: '2027-01-01' },
        { amount: '4.00', due_date: '2027-02-01' },
      ],
    });
    const paid = (await instalmentAction(suite.ctx, suite.w.caller, a, 1, 'issue-now')).json().instalments[0];
    await settle(suite.ctx, suite.w, paid.transaction_id, 'completed');
    await instalmentAction(suite.ctx, suite.w.caller, a, 2, 'issue-now');
    expect((await simulateOverdue(a, 2)).json().status).toBe('past_due');
    const done = await instalmentAction(suite.ctx, suite.w.caller, a, 2, 'cancel');
    expect(done.json()).toMatchObject({ status: 'completed', amount_paid: '3.00' });

    const b = await createSchedule(suite.ctx, suite.w, {
      instalments: [{ amount: '5.00', due_date: '2027-03-01' }],
    });
    await instalmentAction(suite.ctx, suite.w.caller, b, 1, 'issue-now');
    expect((await simulateOverdue(b, 1)).json().status).toBe('past_due');
    const canceled = await suite.ctx.app.inject({
      method: 'POST',
      url: `/api/v1/payment-schedules/${b.schedule_id}/cancel`,
      headers: suite.w.caller.headers,
      payload: {},
    });
    expect(canceled.json()).toMatchObject({ status: 'canceled' });
    expect(canceled.json().instalments[0].status).toBe('canceled');
  });
});
