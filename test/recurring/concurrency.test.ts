/**
 * Exactly once: 50 concurrent retry calls create one attempt (the unique (run, retry_of_attempt)
 * index; the others replay), two worker nodes competing for the same due runs start each once, a
 * crash between recording an attempt and launching it loses nothing and doubles nothing, and the
 * mandate limit accounting in the database at period edges.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurringAttempts, transactions } from '../../src/db/schema/index';
import { RecurringMessages } from '../../src/modules/recurring/recurring.messages';
import { runRecurringWorker, startScheduledRun } from '../../src/modules/recurring/recurring.worker';
import { launchAttempt } from '../../src/modules/recurring/recurring-attempts.service';
import { createTestApp, type TestContext } from '../helpers/app';
import { createPaymentWorld, newKey, type PaymentWorld } from '../payments/fixtures';
import { advance, api, createActive, DAY, drainRecurring, runsOf, settleBank } from './fixtures';

let ctx: TestContext;
let node2: TestContext;
let w: PaymentWorld;

beforeAll(async () => {
  ctx = await createTestApp();
  node2 = await createTestApp({ database: ctx.deps.database });
  node2.clock.set(ctx.clock.now());
  w = await createPaymentWorld(ctx);
});
afterAll(async () => {
  await node2?.close();
  await ctx?.close();
});

describe('manual retry', () => {
  it('50 concurrent retry calls create exactly one attempt and one transaction; the rest replay', async () => {
    const d = await createActive(ctx, w, { amount: '10.52' });
    await settleBank(ctx, w);
    const [failed] = await runsOf(ctx, w, d.definition_id);
    expect(failed!.status).toBe('failed');
    const calls = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api(
          ctx,
          w,
          'POST',
          `/recurring-payments/${d.definition_id}/retry`,
          i % 2 ? { run_id: failed!.run_id } : {},
        ),
      ),
    );
    const statuses = calls.map((c) => c.statusCode);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(calls.filter((c) => c.json().replayed === true)).toHaveLength(49);
    const attempts = await ctx.db
      .select()
      .from(recurringAttempts)
      .where(eq(recurringAttempts.runId, failed!.run_id));
    expect(attempts.map((a) => [a.attemptNumber, a.retryOfAttempt]).sort()).toEqual([
      [1, null],
      [2, 1],
    ]);
    const txs = await ctx.db.select().from(transactions).where(eq(transactions.originId, d.definition_id));
    expect(txs).toHaveLength(2);
  });

  it('the same X-Idempotency-Key replays the stored answer', async () => {
    const d = await createActive(ctx, w, { amount: '10.52' });
    await settleBank(ctx, w);
    const key = newKey();
    const a = await api(
      ctx,
      w,
      'POST',
      `/recurring-payments/${d.definition_id}/retry`,
      {},
      { 'x-idempotency-key': key },
    );
    const b = await api(
      ctx,
      w,
      'POST',
      `/recurring-payments/${d.definition_id}/retry`,
      {},
      { 'x-idempotency-key': key },
    );
    expect([a.statusCode, b.statusCode]).toEqual([202, 200]);
    expect(b.json()).toMatchObject({ run_id: a.json().run_id, replayed: true });
  });
});

describe('scheduler', () => {
  it('two worker nodes competing start every due run once', async () => {
    const defs = [];
    for (let i = 0; i < 4; i++) defs.push(await createActive(ctx, w));
    node2.clock.set(ctx.clock.now());
    await Promise.all([
      runRecurringWorker(ctx.deps),
      runRecurringWorker(node2.deps),
      runRecurringWorker(ctx.deps),
    ]);
    await drainRecurring(ctx);
    for (const d of defs) {
      const runs = await runsOf(ctx, w, d.definition_id);
      expect(runs).toHaveLength(1);
      expect(runs[0]!.attempts).toHaveLength(1);
      const txs = await ctx.db.select().from(transactions).where(eq(transactions.originId, d.definition_id));
      expect(txs).toHaveLength(1);
    }
  });

  it('a crash after the attempt is recorded and before (or during) its launch: relaunched once, never doubled', async () => {
    const d = await createActive(ctx, w);
    const [r] = await runsOf(ctx, w, d.definition_id);
    // The "process" records the attempt, then dies before launching it.
    const attemptId = await startScheduledRun(ctx.deps, r!.run_id);
    expect(typeof attemptId).toBe('string');
    // The launch lease is still due: another node launches it (twice, concurrently, as after a restart race).
    await Promise.all([
      launchAttempt(node2.deps, attemptId as string),
      launchAttempt(ctx.deps, attemptId as string),
    ]);
    await drainRecurring(ctx);
    await settleBank(ctx, w);
    const [after] = await runsOf(ctx, w, d.definition_id);
    expect(after).toMatchObject({ status: 'succeeded' });
    expect(after!.attempts).toHaveLength(1);
    const txs = await ctx.db.select().from(transactions).where(eq(transactions.originId, d.definition_id));
    expect(txs).toHaveLength(1);
  });
});

describe('limit accounting in the database', () => {
  it('per payment and per calendar day, released by a failed attempt, reset at the period edge', async () => {
    const d = await createActive(ctx, w, {
      schedule: undefined,
      amount: undefined,
      mandate: {
        max_amount_per_payment: '10.00',
        periodic_limit: { amount: '25.00', period: 'day', alignment: 'calendar' },
      },
    });
    const run = (amount: string) =>
      api(
        ctx,
        w,
        'POST',
        `/recurring-payments/${d.definition_id}/runs`,
        { amount },
        { 'x-idempotency-key': newKey() },
      );
    expect((await run('10.01')).json()).toEqual({ detail: RecurringMessages.exceedsLimits });
    expect((await run('10.00')).statusCode).toBe(202);
    expect((await run('10.00')).statusCode).toBe(202);
    const third = await run('5.01');
    expect(third.statusCode).toBe(400);
    expect(third.json()).toEqual({ detail: RecurringMessages.exceedsLimits });
    expect((await run('5.00')).statusCode).toBe(202);
    // Midnight UTC: a new calendar day.
    const now = ctx.clock.now();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    await advance(ctx, w, midnight - now.getTime() - 1);
    expect((await run('0.01')).statusCode).toBe(400);
    await advance(ctx, w, 1);
    expect((await run('10.00')).statusCode).toBe(202);
    // A failed attempt releases its amount.
    expect((await run('10.52')).statusCode).toBe(400); // above max per payment
    await settleBank(ctx, w);
    const f = await api(
      ctx,
      w,
      'POST',
      `/recurring-payments/${d.definition_id}/runs`,
      { amount: '9.52' },
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(f.statusCode).toBe(202);
    await settleBank(ctx, w);
    // Used today: 10.00 succeeded; the failed 9.52 does not count.
    expect((await run('10.00')).statusCode).toBe(202);
    expect((await run('5.00')).statusCode).toBe(202);
    expect((await run('0.01')).statusCode).toBe(400);
    void DAY;
  });
});
