/**
 * Every row of the recurring-payment status table and the run rows not covered by lifecycle.test.ts
 * (skip, due while paused, limit exceeded, canceled with the definition), notifications, the hosted
 * mandate page's HTTP answers, and events with their fields at a real HTTP receiver.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notifications } from '../../src/db/schema/index';
import { RecurringMessages } from '../../src/modules/recurring/recurring.messages';
import { webhookWorld } from '../helpers/suites';
import {
  advance,
  api,
  createActive,
  createRecurring,
  DAY,
  drainRecurring,
  getRecurring,
  runsOf,
  settleBank,
  simulate,
} from './fixtures';

const suite = webhookWorld();

const post = (path: string, body: unknown = {}) => api(suite.ctx, suite.w, 'POST', path, body);

describe('recurring payment status table', () => {
  it('pending_authorization -> authorization_failed (reject) and -> expired (link TTL); the page answers 410', async () => {
    const a = await createRecurring(suite.ctx, suite.w);
    expect(await simulate(suite.ctx, suite.w, a.definition_id, 'reject_authorization')).toMatchObject({
      status: 'authorization_failed',
      status_reason: 'payer_rejected',
      mandate: { status: 'rejected' },
    });
    const b = await createRecurring(suite.ctx, suite.w);
    const token = b.authorization_url!.split('/').pop()!;
    expect((await suite.ctx.app.inject({ url: `/checkout/mandate/${token}` })).statusCode).toBe(200);
    await advance(suite.ctx, suite.w, DAY);
    expect((await suite.ctx.app.inject({ url: `/checkout/mandate/${token}` })).statusCode).toBe(410);
    await drainRecurring(suite.ctx);
    expect(await getRecurring(suite.ctx, suite.w, b.definition_id)).toMatchObject({
      status: 'expired',
      status_reason: 'authorization_link_expired',
    });
    expect(
      (await suite.ctx.app.inject({ url: '/checkout/mandate/unknown-token-0123456789' })).statusCode,
    ).toBe(404);
  });

  it('active -> paused (due runs skipped) -> active by resume_at; pause/resume by POST', async () => {
    const d = await createActive(suite.ctx, suite.w);
    const paused = await post(`/recurring-payments/${d.definition_id}/pause`, {
      resume_at: new Date(suite.ctx.clock.now().getTime() + 40 * DAY).toISOString(),
    });
    expect(paused.json()).toMatchObject({ status: 'paused' });
    await drainRecurring(suite.ctx);
    let runs = await runsOf(suite.ctx, suite.w, d.definition_id);
    expect(runs.map((r) => r.status)).toEqual(['skipped', 'scheduled']);
    await advance(suite.ctx, suite.w, 41 * DAY);
    await drainRecurring(suite.ctx);
    expect((await getRecurring(suite.ctx, suite.w, d.definition_id)).status).toBe('active');
    runs = await runsOf(suite.ctx, suite.w, d.definition_id);
    expect(runs.map((r) => r.status)).toEqual(['skipped', 'skipped', 'scheduled']);
    expect((await post(`/recurring-payments/${d.definition_id}/pause`)).json().status).toBe('paused');
    expect((await post(`/recurring-payments/${d.definition_id}/resume`)).json().status).toBe('active');
    const again = await post(`/recurring-payments/${d.definition_id}/resume`);
    expect(again.statusCode).toBe(400);
  });

  it('POST …/runs/{id}/skip skips a scheduled run only', async () => {
    const d = await createActive(suite.ctx, suite.w);
    const [r] = await runsOf(suite.ctx, suite.w, d.definition_id);
    const s = await post(`/recurring-payments/${d.definition_id}/runs/${r!.run_id}/skip`);
    expect(s.json()).toMatchObject({ status: 'skipped' });
    expect((await post(`/recurring-payments/${d.definition_id}/runs/${r!.run_id}/skip`)).statusCode).toBe(
      400,
    );
    const missing = await post(`/recurring-payments/${d.definition_id}/runs/${d.definition_id}/skip`);
    expect(missing.json()).toEqual({ detail: RecurringMessages.runNotFound });
  });

  it('cancel from active, paused and pending_authorization: open runs canceled; writes then 400 terminal', async () => {
    for (const start of ['active', 'paused', 'pending_authorization']) {
      const d =
        start === 'pending_authorization'
          ? await createRecurring(suite.ctx, suite.w)
          : await createActive(suite.ctx, suite.w);
      if (start === 'paused') await post(`/recurring-payments/${d.definition_id}/pause`);
      const c = await post(`/recurring-payments/${d.definition_id}/cancel`, { reason: 'customer left' });
      expect(c.json()).toMatchObject({ status: 'canceled', status_reason: 'customer left' });
      expect(c.json().canceled_at).not.toBeNull();
      const runs = await runsOf(suite.ctx, suite.w, d.definition_id);
      expect(runs.every((r) => r.status === 'canceled')).toBe(true);
      const again = await post(`/recurring-payments/${d.definition_id}/pause`);
      expect(again.json()).toEqual({ detail: RecurringMessages.terminal('canceled') });
    }
  });

  it('revoked by the payer and expired (valid_to) from active and paused, with notifications', async () => {
    const r = await createActive(suite.ctx, suite.w);
    expect(await simulate(suite.ctx, suite.w, r.definition_id, 'revoke')).toMatchObject({
      status: 'revoked',
    });
    expect((await runsOf(suite.ctx, suite.w, r.definition_id))[0]!.status).toBe('canceled');
    const p = await createActive(suite.ctx, suite.w);
    await post(`/recurring-payments/${p.definition_id}/pause`);
    expect(await simulate(suite.ctx, suite.w, p.definition_id, 'expire_mandate')).toMatchObject({
      status: 'expired',
    });
    const v = await createActive(suite.ctx, suite.w, {
      mandate: {
        max_amount_per_payment: '50.00',
        periodic_limit: { amount: '100.00', period: 'month', alignment: 'consent' },
        valid_to: new Date(suite.ctx.clock.now().getTime() + 2 * DAY).toISOString(),
      },
    });
    await advance(suite.ctx, suite.w, 2 * DAY);
    await drainRecurring(suite.ctx);
    expect(await getRecurring(suite.ctx, suite.w, v.definition_id)).toMatchObject({
      status: 'expired',
      status_reason: 'mandate_valid_to_passed',
    });
    const notes = await suite.ctx.db
      .select()
      .from(notifications)
      .where(
        and(
          eq(notifications.clientId, suite.w.caller.clientId),
          eq(notifications.category, 'recurring_payments'),
        ),
      );
    expect(notes.length).toBeGreaterThanOrEqual(3);
  });

  it('active -> completed after max_runs with the last run final; limit exceeded fails a run without a transaction', async () => {
    const d = await createActive(suite.ctx, suite.w, {
      amount: '40.00',
      schedule: {
        interval: 'week',
        interval_count: 1,
        start_date: suite.ctx.clock.now().toISOString().slice(0, 10),
        max_runs: 3,
      },
      mandate: {
        max_amount_per_payment: '50.00',
        periodic_limit: { amount: '70.00', period: 'fortnight', alignment: 'consent' },
      },
    });
    for (let i = 0; i < 3; i++) {
      await settleBank(suite.ctx, suite.w);
      await advance(suite.ctx, suite.w, 7 * DAY);
    }
    await settleBank(suite.ctx, suite.w);
    const runs = await runsOf(suite.ctx, suite.w, d.definition_id);
    expect(runs.map((r) => [r.status, r.failure_reason, r.transaction_id === null])).toEqual([
      ['succeeded', null, false],
      ['failed', 'mandate_limit_exceeded', true],
      ['succeeded', null, false],
    ]);
    expect((await getRecurring(suite.ctx, suite.w, d.definition_id)).status).toBe('completed');
  });

  it('events at a real receiver carry every listed field', async () => {
    await suite.dispatcher.drain();
    const got = suite.rx
      .on('/hooks')
      .map((r) => JSON.parse(r.rawBody) as { type: string; data: Record<string, unknown> });
    const def = got.find((e) => e.type === 'recurring_payment.status_changed');
    expect(Object.keys(def!.data).sort()).toEqual(
      [
        'definition_id',
        'previous_status',
        'current_status',
        'status_reason',
        'project_id',
        'user_id',
        'business_customer_id',
        'actor_type',
        'actor_account_id',
      ].sort(),
    );
    const run = got.find((e) => e.type === 'recurring_payment.run.status_changed');
    expect(Object.keys(run!.data).sort()).toEqual(
      [
        'definition_id',
        'run_id',
        'sequence',
        'kind',
        'amount',
        'currency',
        'transaction_id',
        'attempt_number',
        'previous_status',
        'current_status',
        'failure_reason',
        'will_retry',
        'next_retry_at',
      ].sort(),
    );
    const moves = got
      .filter((e) => e.type === 'recurring_payment.status_changed')
      .map((e) => `${e.data.previous_status}->${e.data.current_status}`);
    for (const m of [
      'null->pending_authorization',
      'pending_authorization->active',
      'pending_authorization->authorization_failed',
      'pending_authorization->expired',
      'active->paused',
      'paused->active',
      'active->canceled',
      'paused->canceled',
      'pending_authorization->canceled',
      'active->revoked',
      'paused->expired',
      'active->expired',
      'active->completed',
    ])
      expect(moves).toContain(m);
  });
});
