/**
 * Payment schedules through the API: plan rounding with awkward totals and currencies with 0 (JPY)
 * and 3 (BHD) decimals (each instalment rounded down to the minor unit, the remainder on the first,
 * the sum always the total), both event types at a real HTTP receiver with exactly the listed
 * fields, and an overdue instalment whose processing payment completes later.
 */
import { describe, expect, it } from 'vitest';
import { webhookWorld } from '../helpers/suites';
import { createSchedule, getSchedule, instalmentAction, postSchedule } from './fixtures';

const suite = webhookWorld();

const plan = (currency: string, total_amount: string, count: number) =>
  createSchedule(suite.ctx, suite.w, {
    currency,
    plan: { total_amount, count, interval: 'month', start_date: '2026-02-01' },
  });

describe('plan rounding', () => {
  it('rounds each instalment down to the minor unit and puts the remainder on the first', async () => {
    const cases: [string, string, number, string, string, string][] = [
      // currency, total, count, first, each, total as answered
      ['EUR', '100.00', 7, '14.32', '14.28', '100.00'],
      ['EUR', '0.07', 2, '0.04', '0.03', '0.07'],
      ['EUR', '999999.99', 60, '16667.05', '16666.66', '999999.99'],
      ['EUR', '10', 3, '3.34', '3.33', '10.00'],
      ['GBP', '0.59', 59, '0.01', '0.01', '0.59'],
      ['JPY', '1000', 7, '148', '142', '1000'],
      ['JPY', '100001', 60, '1707', '1666', '100001'],
      ['BHD', '10.000', 3, '3.334', '3.333', '10.000'],
      ['BHD', '1.005', 7, '0.147', '0.143', '1.005'],
    ];
    for (const [currency, total, count, first, each, answered] of cases) {
      const s = await plan(currency, total, count);
      const amounts = s.instalments.map((i) => i.amount);
      expect(amounts, `${currency} ${total} / ${count}`).toEqual([
        first,
        ...Array.from({ length: count - 1 }, () => each),
      ]);
      expect(s.total_amount).toBe(answered);
      expect(s.currency).toBe(currency);
    }
  });

  it("refuses a total finer than the currency's minor unit, and a plan whose instalments would be 0", async () => {
    for (const [currency, total, count] of [
      ['JPY', '1000.5', 2],
      ['EUR', '10.001', 2],
      ['BHD', '1.0001', 2],
      ['JPY', '59', 60],
      ['BHD', '0.001', 2],
    ] as const) {
      const res = await postSchedule(suite.ctx, suite.w.caller, {
        project_id: suite.w.projectId,
        user_id: suite.w.userId,
        currency,
        plan: { total_amount: total, count, interval: 'week', start_date: '2026-02-01' },
      });
      expect(res.statusCode, `${currency} ${total} / ${count}`).toBe(422);
      expect(res.json().detail[0].loc).toEqual(['body', 'plan', 'total_amount']);
    }
  });
});

describe('late settlement and events', () => {
  it('an overdue instalment whose processing payment completes is paid; events carry exactly the listed fields', async () => {
    const s = await createSchedule(suite.ctx, suite.w, {
      currency: 'BHD',
      instalments: [{ amount: '12.345', due_date: '2026-03-01' }],
    });
    const issued = (await instalmentAction(suite.ctx, suite.w.caller, s, 1, 'issue-now')).json()
      .instalments[0];
    const sim = (url: string, payload: Record<string, string>) =>
      suite.ctx.app.inject({
        method: 'POST',
        url: `/api/v1${url}`,
        headers: suite.w.caller.headers,
        payload,
      });
    // The payer authorized at the bank: the payment is processing, no longer a cancelable intent.
    await sim(`/sandbox/transactions/${issued.transaction_id}/simulate`, {
      provider_status: 'awaiting_bank_authorization',
    });
    const over = await sim(
      `/sandbox/payment-schedules/${s.schedule_id}/instalments/${issued.instalment_id}/simulate`,
      { action: 'overdue' },
    );
    expect(over.json()).toMatchObject({ status: 'past_due', instalments: [{ status: 'overdue' }] });
    await sim(`/sandbox/transactions/${issued.transaction_id}/simulate`, { provider_status: 'completed' });
    const done = await getSchedule(suite.ctx, suite.w.caller, s.schedule_id);
    expect(done).toMatchObject({ status: 'completed', amount_paid: '12.345', total_amount: '12.345' });
    expect(done.instalments[0]).toMatchObject({ status: 'paid', transaction_id: issued.transaction_id });

    await suite.dispatcher.drain();
    const mine = suite.rx
      .on('/hooks')
      .map((r) => JSON.parse(r.rawBody) as { type: string; data: Record<string, unknown> })
      .filter((e) => e.data.schedule_id === s.schedule_id);
    const schedule = mine.filter((e) => e.type === 'payment_schedule.status_changed');
    const instalment = mine.filter((e) => e.type === 'payment_schedule.instalment.status_changed');
    const moves = (list: typeof mine) =>
      list.map((e) => `${e.data.previous_status}->${e.data.current_status}`).sort();
    expect(moves(schedule)).toEqual(['active->past_due', 'null->active', 'past_due->completed']);
    expect(moves(instalment)).toEqual([
      'issued->overdue',
      'null->scheduled',
      'overdue->paid',
      'scheduled->issued',
    ]);
    for (const e of schedule)
      expect(Object.keys(e.data).sort()).toEqual(
        [
          'schedule_id',
          'previous_status',
          'current_status',
          'total_amount',
          'amount_paid',
          'currency',
          'user_id',
          'business_customer_id',
        ].sort(),
      );
    for (const e of instalment)
      expect(Object.keys(e.data).sort()).toEqual(
        [
          'schedule_id',
          'instalment_id',
          'sequence',
          'amount',
          'currency',
          'due_date',
          'transaction_id',
          'checkout_url',
          'link_number',
          'previous_status',
          'current_status',
        ].sort(),
      );
    expect(schedule.find((e) => e.data.current_status === 'completed')!.data).toEqual({
      schedule_id: s.schedule_id,
      previous_status: 'past_due',
      current_status: 'completed',
      total_amount: '12.345',
      amount_paid: '12.345',
      currency: 'BHD',
      user_id: suite.w.userId,
      business_customer_id: null,
    });
    expect(instalment.find((e) => e.data.current_status === 'paid')!.data).toEqual({
      schedule_id: s.schedule_id,
      instalment_id: issued.instalment_id,
      sequence: 1,
      amount: '12.345',
      currency: 'BHD',
      due_date: '2026-03-01',
      transaction_id: issued.transaction_id,
      checkout_url: issued.checkout_url,
      link_number: 1,
      previous_status: 'overdue',
      current_status: 'paid',
    });
  });
});
