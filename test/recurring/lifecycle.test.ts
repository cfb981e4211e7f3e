/**
 * Recurring payments: creation and its checks, the mandate through the sandbox bank, scheduled runs
 * driven by the worker on the manual clock, sandbox magic amounts, automatic and manual retries,
 * pause/resume/skip/cancel/revoke/expire, completion, and events at a real HTTP receiver.
 */
import { describe, expect, it } from 'vitest';
import { RecurringMessages } from '../../src/modules/recurring/recurring.messages';
import { createTestApp } from '../helpers/app';
import { webhookWorld } from '../helpers/suites';
import { createPaymentWorld, newKey } from '../payments/fixtures';
import {
  advance,
  api,
  createActive,
  createRecurring,
  drainRecurring,
  HOUR,
  recurringBody,
  runsOf,
  settleBank,
} from './fixtures';

const s = webhookWorld({
  app: { env: { SVC_RECURRING_RETRY_HOURS: '24,72', SVC_RECURRING_MAX_ATTEMPTS: '4' } },
});

describe('creation', () => {
  it('answers 201 pending_authorization with the hosted authorization URL', async () => {
    const d = await createRecurring(s.ctx, s.w);
    expect(d).toMatchObject({
      status: 'pending_authorization',
      amount: '10.00',
      runs_count: 0,
      retry_policy: { auto_retry: true, retry_after_hours: [24, 72] },
      mandate: {
        max_amount_per_payment: '50.00',
        periodic_limit: { amount: '100.00', period: 'month', alignment: 'calendar' },
        status: 'awaiting_authorization',
        bank_name: null,
      },
    });
    expect(d.authorization_url).toMatch(/\/checkout\/mandate\/[A-Za-z0-9_-]{43}$/);
    expect(d.authorization_expires_at).toBe('2026-01-16T10:00:00.000Z');
  });

  it('requires the idempotency key and replays the same request', async () => {
    const none = await api(s.ctx, s.w, 'POST', '/recurring-payments', recurringBody(s.w));
    expect(none.statusCode).toBe(400);
    const key = newKey();
    const a = await api(s.ctx, s.w, 'POST', '/recurring-payments', recurringBody(s.w), {
      'x-idempotency-key': key,
    });
    const b = await api(s.ctx, s.w, 'POST', '/recurring-payments', recurringBody(s.w), {
      'x-idempotency-key': key,
    });
    expect([a.statusCode, b.statusCode]).toEqual([201, 200]);
    expect(b.json().definition_id).toBe(a.json().definition_id);
  });

  it('422 with loc: amount above max per payment, amount missing with schedule, past start, bad limit', async () => {
    const res = await api(
      s.ctx,
      s.w,
      'POST',
      '/recurring-payments',
      recurringBody(s.w, {
        amount: '60.00',
        schedule: { interval: 'week', interval_count: 1, start_date: '2026-01-01' },
        mandate: {
          max_amount_per_payment: '50.00',
          periodic_limit: { amount: 'x', period: 'week', alignment: 'consent' },
        },
      }),
      { 'x-idempotency-key': newKey() },
    );
    expect(res.statusCode).toBe(422);
    const locs = (res.json().detail as { loc: unknown[]; msg: string }[]).map((i) => [
      i.loc.join('.'),
      i.msg,
    ]);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body.amount', RecurringMessages.amountAboveMaxPerPayment],
        ['body.schedule.start_date', RecurringMessages.startInPast],
        ['body.mandate.periodic_limit.amount', RecurringMessages.limitAmountInvalid],
      ]),
    );
    const noAmount = await api(
      s.ctx,
      s.w,
      'POST',
      '/recurring-payments',
      recurringBody(s.w, { amount: undefined }),
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(noAmount.json().detail[0]).toMatchObject({
      loc: ['body', 'amount'],
      msg: RecurringMessages.amountRequiredWithSchedule,
    });
  });

  it('another client gets 404', async () => {
    const d = await createRecurring(s.ctx, s.w);
    const other = await createPaymentWorld(s.ctx);
    const res = await api(s.ctx, other, 'GET', `/recurring-payments/${d.definition_id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: RecurringMessages.notFound });
  });
});

describe('mandate and runs', () => {
  it('authorize -> active, first run scheduled; it succeeds at the bank and the next run is created', async () => {
    const d = await createActive(s.ctx, s.w);
    expect(d).toMatchObject({
      status: 'active',
      mandate: { status: 'authorized', bank_name: 'Sandbox Bank' },
    });
    let runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs.map((r) => [r.sequence, r.status, r.scheduled_for])).toEqual([
      [1, 'scheduled', '2026-01-15T00:00:00.000Z'],
    ]);
    expect(d.next_run_at).toBe('2026-01-15T00:00:00.000Z');
    await drainRecurring(s.ctx);
    runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs[0]).toMatchObject({
      status: 'processing',
      attempts: [{ attempt_number: 1, trigger: 'schedule' }],
    });
    const txId = runs[0]!.transaction_id!;
    const t = await api(s.ctx, s.w, 'GET', `/transactions/${txId}`);
    expect(t.json()).toMatchObject({
      status: 'processing',
      origin: { type: 'recurring', id: d.definition_id },
    });
    await settleBank(s.ctx, s.w);
    runs = await runsOf(s.ctx, s.w, d.definition_id);
    expect(runs.map((r) => [r.sequence, r.status, r.scheduled_for])).toEqual([
      [1, 'succeeded', '2026-01-15T00:00:00.000Z'],
      [2, 'scheduled', '2026-02-15T00:00:00.000Z'],
    ]);
    expect(runs[0]!.attempts[0]).toMatchObject({ outcome: 'succeeded' });
    expect((await api(s.ctx, s.w, 'GET', `/transactions/${txId}`)).json().status).toBe('success');
  });

  it('.51: insufficient funds -> retry_scheduled after 24h -> auto retry succeeds', async () => {
    const d = await createActive(s.ctx, s.w, { amount: '10.51' });
    await settleBank(s.ctx, s.w);
    let [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r).toMatchObject({
      status: 'retry_scheduled',
      failure_reason: 'insufficient_funds',
      will_retry: true,
    });
    expect(new Date(r!.next_retry_at!).getTime() - s.ctx.clock.now().getTime()).toBeLessThanOrEqual(
      24 * HOUR,
    );
    await advance(s.ctx, s.w, 24 * HOUR);
    await settleBank(s.ctx, s.w);
    [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r).toMatchObject({ status: 'succeeded', will_retry: false, next_retry_at: null });
    expect(r!.attempts.map((a) => [a.attempt_number, a.trigger, a.retry_of_attempt, a.outcome])).toEqual([
      [1, 'schedule', null, 'failed'],
      [2, 'auto_retry', 1, 'succeeded'],
    ]);
  });

  it('.52: rejected, not retryable -> failed; a manual retry answers 202, repeated calls replay', async () => {
    const d = await createActive(s.ctx, s.w, { amount: '10.52' });
    await settleBank(s.ctx, s.w);
    const [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r).toMatchObject({ status: 'failed', failure_reason: 'bank_rejected', will_retry: false });
    const first = await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {});
    expect(first.statusCode).toBe(202);
    expect(first.json()).toMatchObject({ run_id: r!.run_id, status: 'processing', replayed: false });
    const again = await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {
      run_id: r!.run_id,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ replayed: true, status: 'processing' });
    expect(again.json().attempts).toHaveLength(2);
  });

  it('.54 exhausts the automatic retries, then manual retries up to the maximum', async () => {
    const d = await createActive(s.ctx, s.w, { amount: '10.54' });
    await settleBank(s.ctx, s.w);
    await advance(s.ctx, s.w, 24 * HOUR);
    await settleBank(s.ctx, s.w);
    await advance(s.ctx, s.w, 72 * HOUR);
    await settleBank(s.ctx, s.w);
    let [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds', will_retry: false });
    expect(r!.attempts.map((a) => a.trigger)).toEqual(['schedule', 'auto_retry', 'auto_retry']);
    expect(
      (await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {})).statusCode,
    ).toBe(202);
    await settleBank(s.ctx, s.w);
    [r] = await runsOf(s.ctx, s.w, d.definition_id);
    expect(r!.attempts).toHaveLength(4);
    const over = await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {});
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({ detail: RecurringMessages.maxAttempts });
  });

  it('retry rules: no failed run, a run that never failed, unauthorized mandate', async () => {
    const pending = await createRecurring(s.ctx, s.w);
    const p = await api(s.ctx, s.w, 'POST', `/recurring-payments/${pending.definition_id}/retry`, {});
    expect(p.json()).toEqual({ detail: RecurringMessages.mandateNotAuthorized });
    const d = await createActive(s.ctx, s.w);
    const none = await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {});
    expect(none.json()).toEqual({ detail: RecurringMessages.noFailedRun });
    const [r] = await runsOf(s.ctx, s.w, d.definition_id);
    const never = await api(s.ctx, s.w, 'POST', `/recurring-payments/${d.definition_id}/retry`, {
      run_id: r!.run_id,
    });
    expect(never.json()).toEqual({ detail: RecurringMessages.onlyFailedRuns });
  });
});

describe("the bank's answer", () => {
  it('is applied with the deps of the app whose payment moved, whatever app the process built last', {
    timeout: 90_000,
  }, async () => {
    // A node allowing one attempt, then another app in the same process (default: 10 attempts).
    const oneAttempt = await createTestApp({ env: { SVC_RECURRING_MAX_ATTEMPTS: '1' } });
    const later = await createTestApp();
    try {
      const w1 = await createPaymentWorld(oneAttempt);
      const d = await createActive(oneAttempt, w1, { amount: '10.51' });
      await settleBank(oneAttempt, w1);
      const [r] = await runsOf(oneAttempt, w1, d.definition_id);
      // Insufficient funds on the only attempt allowed: no automatic retry.
      expect(r).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds', will_retry: false });
    } finally {
      await later.close();
      await oneAttempt.close();
    }
  });
});
