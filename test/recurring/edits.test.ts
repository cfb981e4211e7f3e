/**
 * PATCH /recurring-payments/{id} (every editable field, invalid edits, edits in each status), the
 * sandbox `.53` amount (processing until the transaction simulate endpoint decides), the sandbox
 * `run-next` endpoint, and the table rows retry_scheduled -> processing (manual),
 * retry_scheduled -> canceled and paused -> revoked.
 */
import { describe, expect, it } from 'vitest';
import { RecurringMessages } from '../../src/modules/recurring/recurring.messages';
import { NO_RUN_TO_START } from '../../src/modules/recurring/recurring-sandbox.service';
import { paymentApp } from '../helpers/suites';
import { createPaymentWorld, newKey } from '../payments/fixtures';
import {
  advance,
  api,
  createActive,
  createRecurring,
  DAY,
  drainRecurring,
  getRecurring,
  HOUR,
  type Run,
  runsOf,
  settleBank,
  simulate,
} from './fixtures';

const s = paymentApp({ app: { env: { SVC_RECURRING_RETRY_HOURS: '24,72' } } });

const post = (path: string, body: unknown = {}) => api(s.ctx, s.w, 'POST', path, body);
const patch = (id: string, body: unknown) => api(s.ctx, s.w, 'PATCH', `/recurring-payments/${id}`, body);
const runNext = (id: string) => post(`/sandbox/recurring-payments/${id}/run-next`);
const txSimulate = (id: string, payload: Record<string, string>) =>
  post(`/sandbox/transactions/${id}/simulate`, payload);
const day = (offsetDays: number) =>
  new Date(s.ctx.clock.now().getTime() + offsetDays * DAY).toISOString().slice(0, 10);
const locs = (res: { json: () => { detail: { loc: unknown[]; msg: string }[] } }) =>
  res.json().detail.map((i) => [i.loc.join('.'), i.msg]);

describe('PATCH /recurring-payments/{id}', () => {
  it('edits every field while pending_authorization; retry_policy merges', async () => {
    const d = await createRecurring(s.ctx, s.w);
    const res = await patch(d.definition_id, {
      amount: '12.5',
      description: 'Gym, premium',
      metadata: { plan: 'premium' },
      retry_policy: { auto_retry: false },
      schedule: { interval: 'week', interval_count: 2, start_date: day(3), max_runs: 4 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'pending_authorization',
      amount: '12.50',
      description: 'Gym, premium',
      metadata: { plan: 'premium' },
      retry_policy: { auto_retry: false, retry_after_hours: [24, 72] },
      schedule: { interval: 'week', interval_count: 2, start_date: day(3), max_runs: 4 },
    });
    const more = await patch(d.definition_id, {
      description: null,
      retry_policy: { retry_after_hours: [6] },
    });
    expect(more.json()).toMatchObject({
      description: null,
      retry_policy: { auto_retry: false, retry_after_hours: [6] },
    });
    // The new calendar applies from authorization on.
    const active = await simulate(s.ctx, s.w, d.definition_id, 'authorize');
    expect(active.next_run_at).toBe(`${day(3)}T00:00:00.000Z`);
    const [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r).toMatchObject({ amount: '12.50', scheduled_for: `${day(3)}T00:00:00.000Z` });
  });

  it('while active: the open run takes the new amount and moves to the new calendar; retry_policy rules the next failure', async () => {
    const d = await createActive(s.ctx, s.w, { amount: '10.51' });
    const [r0] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r0!.scheduled_for).toBe(`${day(0)}T00:00:00.000Z`);
    const moved = await patch(d.definition_id, {
      schedule: { interval: 'month', interval_count: 1, start_date: day(5), day_of_month: 20 },
    });
    expect(moved.json().next_run_at).toBe(`${day(5)}T00:00:00.000Z`);
    let runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs.map((r) => [r.run_id, r.status, r.scheduled_for])).toEqual([
      [r0!.run_id, 'scheduled', `${day(5)}T00:00:00.000Z`],
    ]);
    expect((await patch(d.definition_id, { amount: '20.51' })).json().amount).toBe('20.51');
    expect((await runsOf(s.ctx, s.w, d.definition_id))[0]!.amount).toBe('20.51');
    // auto_retry off: .51's insufficient funds fails the run instead of scheduling a retry.
    expect((await patch(d.definition_id, { retry_policy: { auto_retry: false } })).statusCode).toBe(200);
    await advance(s.ctx, s.w, 5 * DAY);
    await settleBank(s.ctx, s.w);
    runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs[0]).toMatchObject({
      status: 'failed',
      failure_reason: 'insufficient_funds',
      will_retry: false,
      amount: '20.51',
    });
    expect(runs[1]!.scheduled_for).toBe('2026-02-20T00:00:00.000Z');
    // A calendar that has ended skips the open run and completes the recurring payment.
    const ended = await patch(d.definition_id, {
      schedule: { interval: 'month', interval_count: 1, start_date: day(0), max_runs: 1 },
    });
    expect(ended.json()).toMatchObject({ status: 'completed', next_run_at: null });
    runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs.map((r) => r.status)).toEqual(['failed', 'skipped']);
    expect((await patch(d.definition_id, { amount: '1.00' })).json()).toEqual({
      detail: RecurringMessages.terminal('completed'),
    });
  });

  it('while paused: edits apply; a schedule edit moves the open run', async () => {
    const d = await createActive(s.ctx, s.w);
    await post(`/recurring-payments/${d.definition_id}/pause`);
    const res = await patch(d.definition_id, {
      amount: '15.00',
      schedule: { interval: 'year', interval_count: 1, start_date: day(10) },
      metadata: { k: 'v' },
    });
    expect(res.json()).toMatchObject({ status: 'paused', amount: '15.00', metadata: { k: 'v' } });
    const [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r).toMatchObject({
      status: 'scheduled',
      amount: '15.00',
      scheduled_for: `${day(10)}T00:00:00.000Z`,
    });
  });

  it('refuses invalid edits: above the mandate, bad values, immutable limits, terminal statuses, other clients', async () => {
    const d = await createRecurring(s.ctx, s.w, { amount: undefined, schedule: undefined });
    expect((await patch(d.definition_id, { amount: '50.01' })).json()).toEqual({
      detail: RecurringMessages.exceedsLimits,
    });
    const bad = await patch(d.definition_id, { amount: '1.234' });
    expect(bad.statusCode).toBe(422);
    expect(locs(bad)).toEqual([['body.amount', 'Amount has more decimal places than the currency allows']]);
    const sched = await patch(d.definition_id, {
      schedule: { interval: 'week', interval_count: 1, start_date: day(-1), end_date: day(-2) },
    });
    expect(sched.statusCode).toBe(422);
    expect(locs(sched)).toEqual(
      expect.arrayContaining([
        ['body.schedule.start_date', RecurringMessages.startInPast],
        ['body.schedule.end_date', RecurringMessages.endBeforeStart],
        ['body.amount', RecurringMessages.amountRequiredWithSchedule],
      ]),
    );
    for (const body of [
      { mandate: { max_amount_per_payment: '99.00' } },
      { currency: 'GBP' },
      { description: 'x'.repeat(141) },
      { retry_policy: { retry_after_hours: [1, 2, 3, 4, 5, 6] } },
      { schedule: { interval: 'day', interval_count: 1, start_date: day(1) } },
      { schedule: { interval: 'week', interval_count: 13, start_date: day(1) } },
      { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) },
    ]) {
      const res = await patch(d.definition_id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
    }
    // Nothing was changed by the refused edits.
    expect(await getRecurring(s.ctx, s.w, d.definition_id)).toMatchObject({
      amount: null,
      schedule: null,
      description: 'Gym membership',
    });
    const other = await createPaymentWorld(s.ctx);
    const foreign = await api(s.ctx, other, 'PATCH', `/recurring-payments/${d.definition_id}`, {
      description: 'x',
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: RecurringMessages.notFound });

    const targets = {
      canceled: d.definition_id,
      authorization_failed: (
        await simulate(s.ctx, s.w, (await createRecurring(s.ctx, s.w)).definition_id, 'reject_authorization')
      ).definition_id,
      revoked: (await simulate(s.ctx, s.w, (await createActive(s.ctx, s.w)).definition_id, 'revoke'))
        .definition_id,
      expired: (await simulate(s.ctx, s.w, (await createActive(s.ctx, s.w)).definition_id, 'expire_mandate'))
        .definition_id,
    };
    await post(`/recurring-payments/${d.definition_id}/cancel`);
    for (const [status, id] of Object.entries(targets)) {
      const res = await patch(id, { description: 'late edit' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: RecurringMessages.terminal(status) });
    }
  });
});

describe('sandbox .53 and run-next', () => {
  it('.53 stays processing until the transaction simulate endpoint decides (success, insufficient funds, rejected)', async () => {
    const d = await createActive(s.ctx, s.w, { schedule: undefined, amount: undefined });
    const onDemand = async (amount: string) => {
      const res = await api(
        s.ctx,
        s.w,
        'POST',
        `/recurring-payments/${d.definition_id}/runs`,
        { amount },
        { 'x-idempotency-key': newKey() },
      );
      expect(res.statusCode).toBe(202);
      return res.json() as Run;
    };
    const runOf = async (id: string) =>
      (await runsOf(s.ctx, s.w, d.definition_id)).find((r) => r.run_id === id)!;
    const ok = await onDemand('5.53');
    const poor = await onDemand('6.53');
    const refused = await onDemand('7.53');
    await settleBank(s.ctx, s.w);
    await advance(s.ctx, s.w, HOUR);
    await settleBank(s.ctx, s.w);
    for (const r of [ok, poor, refused]) expect((await runOf(r.run_id)).status).toBe('processing');
    const okTx = (await runOf(ok.run_id)).transaction_id!;
    expect((await txSimulate(okTx, { outcome: 'success' })).json().status).toBe('success');
    expect(await runOf(ok.run_id)).toMatchObject({ status: 'succeeded', transaction_id: okTx });
    await txSimulate((await runOf(poor.run_id)).transaction_id!, {
      provider_status: 'rejected_insufficient_funds',
    });
    expect(await runOf(poor.run_id)).toMatchObject({
      status: 'retry_scheduled',
      failure_reason: 'insufficient_funds',
      will_retry: true,
    });
    await txSimulate((await runOf(refused.run_id)).transaction_id!, { provider_status: 'rejected' });
    expect(await runOf(refused.run_id)).toMatchObject({
      status: 'failed',
      failure_reason: 'bank_rejected',
      will_retry: false,
    });
    // run-next starts the due retry now (an auto_retry attempt), which again waits for the simulate endpoint.
    const next = await runNext(d.definition_id);
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({ run_id: poor.run_id, status: 'processing', next_retry_at: null });
    expect(next.json().attempts.map((a: { trigger: string }) => a.trigger)).toEqual([
      'on_demand',
      'auto_retry',
    ]);
    await settleBank(s.ctx, s.w);
    expect((await runOf(poor.run_id)).status).toBe('processing');
    await txSimulate((await runOf(poor.run_id)).transaction_id!, { outcome: 'success' });
    expect(await runOf(poor.run_id)).toMatchObject({ status: 'succeeded' });
    expect((await runNext(d.definition_id)).json()).toEqual({ detail: NO_RUN_TO_START });
  });

  it('run-next starts the next scheduled run now, skips it while paused, and refuses what it cannot start', async () => {
    const d = await createActive(s.ctx, s.w, {
      schedule: { interval: 'month', interval_count: 1, start_date: day(20) },
    });
    const first = await runNext(d.definition_id);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      sequence: 1,
      status: 'processing',
      scheduled_for: `${day(20)}T00:00:00.000Z`,
      attempts: [{ attempt_number: 1, trigger: 'schedule' }],
    });
    await settleBank(s.ctx, s.w);
    let runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs.map((r) => [r.sequence, r.status])).toEqual([
      [1, 'succeeded'],
      [2, 'scheduled'],
    ]);
    await post(`/recurring-payments/${d.definition_id}/pause`);
    expect((await runNext(d.definition_id)).json()).toMatchObject({ sequence: 2, status: 'skipped' });
    await post(`/recurring-payments/${d.definition_id}/resume`);
    runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'skipped', 'scheduled']);
    // Only one run per call: the third is still scheduled after the second was started.
    expect((await runNext(d.definition_id)).json()).toMatchObject({ sequence: 3, status: 'processing' });
    await drainRecurring(s.ctx);
    expect((await runsOf(s.ctx, s.w, d.definition_id)).map((r) => r.status)).toEqual([
      'succeeded',
      'skipped',
      'processing',
    ]);
    const pending = await createRecurring(s.ctx, s.w);
    expect((await runNext(pending.definition_id)).json()).toEqual({
      detail: RecurringMessages.mandateNotAuthorized,
    });
    await post(`/recurring-payments/${d.definition_id}/cancel`);
    expect((await runNext(d.definition_id)).json()).toEqual({
      detail: RecurringMessages.terminal('canceled'),
    });
    const other = await createPaymentWorld(s.ctx);
    const foreign = await api(
      s.ctx,
      other,
      'POST',
      `/sandbox/recurring-payments/${pending.definition_id}/run-next`,
    );
    expect(foreign.statusCode).toBe(404);
  });
});

describe('table rows not covered elsewhere', () => {
  it('retry_scheduled -> processing by POST …/retry (next_retry_at cleared), and -> canceled with the recurring payment', async () => {
    const a = await createActive(s.ctx, s.w, { amount: '10.54' });
    await settleBank(s.ctx, s.w);
    let [r] = await runsOf(s.ctx, s.w, a.definition_id);
    expect(r).toMatchObject({ status: 'retry_scheduled', will_retry: true });
    const retry = await post(`/recurring-payments/${a.definition_id}/retry`);
    expect(retry.statusCode).toBe(202);
    expect(retry.json()).toMatchObject({ status: 'processing', next_retry_at: null, will_retry: false });
    await settleBank(s.ctx, s.w);
    [r] = await runsOf(s.ctx, s.w, a.definition_id);
    expect(r!.attempts.map((x) => [x.trigger, x.retry_of_attempt])).toEqual([
      ['schedule', null],
      ['manual_retry', 1],
    ]);
    // .54 fails again: the second automatic delay (72 h) is next.
    expect(r).toMatchObject({ status: 'retry_scheduled' });
    const c = await post(`/recurring-payments/${a.definition_id}/cancel`);
    expect(c.json().status).toBe('canceled');
    [r] = await runsOf(s.ctx, s.w, a.definition_id);
    expect(r).toMatchObject({ status: 'canceled', will_retry: false, next_retry_at: null });
    // Nothing starts it later.
    await advance(s.ctx, s.w, 4 * DAY);
    await drainRecurring(s.ctx);
    expect((await runsOf(s.ctx, s.w, a.definition_id))[0]!.attempts).toHaveLength(2);
  });

  it('paused -> revoked when the payer revokes the mandate: the open run is canceled', async () => {
    const d = await createActive(s.ctx, s.w);
    expect((await post(`/recurring-payments/${d.definition_id}/pause`)).json().status).toBe('paused');
    expect(await simulate(s.ctx, s.w, d.definition_id, 'revoke')).toMatchObject({
      status: 'revoked',
      status_reason: 'revoked_by_payer',
      mandate: { status: 'revoked' },
    });
    expect((await runsOf(s.ctx, s.w, d.definition_id)).map((r) => r.status)).toEqual(['canceled']);
  });
});
