/**
 * Refunds through the API on the sandbox bank: full and partial refunds, the rules and their
 * errors, the payment's sums and timeline, events, notifications and activity, cancel, the
 * sandbox's magic amounts, lost answers, notifications as hints and the reconciliation sweep.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../src/db/client';
import {
  events,
  projects,
  refunds,
  sandboxBankRefunds,
  sandboxBankSessions,
} from '../../src/db/schema/index';
import { RefundMessages } from '../../src/modules/refunds/refunds.messages';
import { submitRefund } from '../../src/modules/refunds/refunds.service';
import { BankProviderError } from '../../src/providers/bank/port';
import {
  SANDBOX_REFUND_REFUSED_REASON,
  SANDBOX_REFUND_RETURNED_REASON,
} from '../../src/providers/bank/sandbox-refunds';
import { SandboxBank } from '../../src/providers/bank/simulator';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { createPaylink, createPaymentWorld, newKey, type PaymentWorld, simulate } from '../payments/fixtures';
import {
  paidPayment,
  postRefund,
  readRefund,
  readTransaction,
  runWorker,
  sandboxBank,
  settleRefunds,
} from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx?.close());

async function eventsOf(type: string, refundId: string) {
  const rows = await ctx.db.select().from(events).where(eq(events.type, type));
  return rows.filter((e) => (e.data as { refund_id?: string }).refund_id === refundId);
}

describe('a full refund', () => {
  it('is taken by the network at once, settles, and the payment records it', async () => {
    const id = await paidPayment(ctx, w, '100.00');
    const before = await readTransaction(ctx, w.caller, id);
    expect(before.refunded_amount).toBe('0.00');
    expect(before.refundable_amount).toBe('100.00');
    expect(before.allowed_actions).toContain('refund');

    const res = await postRefund(ctx, w.caller, id, { reason: 'Returned item', metadata: { order: '42' } });
    expect(res.statusCode, res.body).toBe(201);
    const refund = res.json();
    expect(refund).toMatchObject({
      transaction_id: id,
      amount: '100.00',
      currency: 'EUR',
      status: 'processing',
      reason: 'Returned item',
      failure_reason: null,
      metadata: { order: '42' },
      allowed_actions: ['simulate'],
    });
    expect(refund.submitted_at).not.toBeNull();
    const held = await readTransaction(ctx, w.caller, id);
    expect(held.refundable_amount).toBe('0.00');
    expect(held.refunded_amount).toBe('0.00');
    expect(held.allowed_actions).not.toContain('refund');

    expect(await settleRefunds(ctx)).toBeGreaterThan(0);
    const done = await readRefund(ctx, w.caller, refund.refund_id);
    expect(done.status).toBe('succeeded');
    expect(done.completed_at).not.toBeNull();
    const after = await readTransaction(ctx, w.caller, id);
    expect(after).toMatchObject({ status: 'success', refunded_amount: '100.00', refundable_amount: '0.00' });

    // The timeline: `refunded` as a detail-only entry, no coarse change and no payment.status_changed.
    const timeline = (
      await ctx.app.inject({ url: `/api/v1/transactions/${id}/status-events`, headers: w.caller.headers })
    ).json().status_events;
    const entry = timeline.find((e: { provider_status: string }) => e.provider_status === 'refunded');
    expect(entry).toMatchObject({ kind: 'detail', previous_status: 'success', status: 'success' });
    const paymentEvents = (
      await ctx.db.select().from(events).where(eq(events.type, 'payment.status_changed'))
    ).filter((e) => (e.data as { transaction_id: string }).transaction_id === id);
    expect(
      paymentEvents.every((e) => (e.data as { status_detail: string }).status_detail !== 'refunded'),
    ).toBe(true);

    // Events, notifications and activity, one each per change.
    expect(await eventsOf('refund.created', refund.refund_id)).toHaveLength(1);
    const moves = (await eventsOf('refund.status_changed', refund.refund_id)).map(
      (e) => (e.data as { current_status: string }).current_status,
    );
    expect(moves.sort()).toEqual(['processing', 'succeeded']);
    const notes = rowsOf<{ title: string }>(
      await ctx.db.execute(sql`select title from notifications where client_id = ${w.caller.clientId}::uuid
        and body like ${`Refund ${refund.refund_id}%`}`),
    ).map((n) => n.title);
    expect(new Set(notes)).toEqual(
      new Set(['Refund requested', 'Refund sent to the bank', 'Refund completed']),
    );
    const actions = rowsOf<{ action: string }>(
      await ctx.db.execute(sql`select action from activity_logs where client_id = ${w.caller.clientId}::uuid
        and target_id = ${refund.refund_id}`),
    ).map((a) => a.action);
    expect(actions.sort()).toEqual(['refund.created', 'refund.processing', 'refund.succeeded']);
  });

  it('partial refunds add up to the payment and no further', async () => {
    const id = await paidPayment(ctx, w, '50.00');
    const first = await postRefund(ctx, w.caller, id, { amount: '20.5' });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().amount).toBe('20.50');
    expect((await readTransaction(ctx, w.caller, id)).refundable_amount).toBe('29.50');
    const tooMuch = await postRefund(ctx, w.caller, id, { amount: '29.51' });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json().detail[0]).toMatchObject({
      loc: ['body', 'amount'],
      msg: RefundMessages.exceedsRefundable('29.50', 'EUR'),
    });
    const rest = await postRefund(ctx, w.caller, id);
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json().amount).toBe('29.50');
    const none = await postRefund(ctx, w.caller, id);
    expect(none.statusCode).toBe(409);
    expect(none.json().detail).toBe(RefundMessages.nothingLeft('EUR'));
    await settleRefunds(ctx);
    expect(await readTransaction(ctx, w.caller, id)).toMatchObject({
      refunded_amount: '50.00',
      refundable_amount: '0.00',
    });
    const list = (
      await ctx.app.inject({ url: `/api/v1/transactions/${id}/refunds`, headers: w.caller.headers })
    ).json();
    expect(list.refunds.map((r: { amount: string; status: string }) => [r.amount, r.status])).toEqual([
      ['20.50', 'succeeded'],
      ['29.50', 'succeeded'],
    ]);
  });
});

describe('the rules', () => {
  it('refuses bad amounts at body.amount', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    for (const [amount, msg] of [
      ['1.234', RefundMessages.amountPrecision('EUR', 2)],
      ['0', RefundMessages.amountNotPositive],
      ['0.00', RefundMessages.amountNotPositive],
      ['-1.00', RefundMessages.amountNotPositive],
      ['ten', RefundMessages.amountFormat],
      ['10.01', RefundMessages.exceedsRefundable('10.00', 'EUR')],
    ] as const) {
      const r = await postRefund(ctx, w.caller, id, { amount });
      expect(r.statusCode, `${amount}: ${r.body}`).toBe(422);
      expect(r.json().detail[0]).toMatchObject({ loc: ['body', 'amount'], msg });
    }
    const number = await postRefund(ctx, w.caller, id, { amount: 5 });
    expect(number.statusCode).toBe(422);
    expect(number.json().detail[0].loc).toEqual(['body', 'amount']);
    const currency = await postRefund(ctx, w.caller, id, { currency: 'GBP' });
    expect(currency.statusCode).toBe(422);
    expect(currency.json().detail[0]).toMatchObject({
      loc: ['body', 'currency'],
      msg: RefundMessages.currencyMismatch('EUR'),
    });
    expect((await readTransaction(ctx, w.caller, id)).refundable_amount).toBe('10.00');
  });

  it('refunds only a successful payment (409 naming its status)', async () => {
    const pending = await createPaylink(ctx, w);
    const r1 = await postRefund(ctx, w.caller, pending.transaction_id);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().detail).toBe(RefundMessages.onlySuccessfulPayments('pending'));
    const failed = await createPaylink(ctx, w);
    await simulate(ctx, w, failed.transaction_id, 'awaiting_bank_authorization');
    await simulate(ctx, w, failed.transaction_id, 'rejected');
    const r2 = await postRefund(ctx, w.caller, failed.transaction_id);
    expect(r2.statusCode).toBe(409);
    expect(r2.json().detail).toBe(RefundMessages.onlySuccessfulPayments('failed'));
    expect((await readTransaction(ctx, w.caller, failed.transaction_id)).allowed_actions).not.toContain(
      'refund',
    );
  });

  it("another client's payment or refund is a 404", async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const mine = (await postRefund(ctx, w.caller, id, { amount: '1.00' })).json();
    const other = await createTestClient(ctx);
    const r = await postRefund(ctx, other, id);
    expect(r.statusCode).toBe(404);
    expect(r.json().detail).toBe('Transaction not found');
    for (const url of [`/api/v1/refunds/${mine.refund_id}`, `/api/v1/transactions/${id}/refunds`]) {
      const g = await ctx.app.inject({ url, headers: other.headers });
      expect(g.statusCode, url).toBe(404);
    }
    const c = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/refunds/${mine.refund_id}/cancel`,
      headers: other.headers,
    });
    expect(c.statusCode).toBe(404);
    const list = (await ctx.app.inject({ url: '/api/v1/refunds', headers: other.headers })).json();
    expect(list.refunds).toEqual([]);
  });

  it('needs an idempotency key, and replays the refund for the same key and body', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const missing = await postRefund(ctx, w.caller, id, {}, null);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().detail).toBe('X-Idempotency-Key must not be empty');
    const key = newKey();
    const first = await postRefund(ctx, w.caller, id, { amount: '2.00' }, key);
    expect(first.statusCode).toBe(201);
    const again = await postRefund(ctx, w.caller, id, { amount: '2.00' }, key);
    expect(again.statusCode).toBe(200);
    expect(again.json().refund_id).toBe(first.json().refund_id);
    const other = await postRefund(ctx, w.caller, id, { amount: '3.00' }, key);
    expect(other.statusCode).toBe(409);
    expect((await readTransaction(ctx, w.caller, id)).refundable_amount).toBe('8.00');
  });

  it('a frozen or archived project still refunds', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    await ctx.db
      .update(projects)
      .set({ isFrozen: true, archivedAt: new Date() })
      .where(eq(projects.id, w.projectId));
    try {
      const r = await postRefund(ctx, w.caller, id);
      expect(r.statusCode, r.body).toBe(201);
    } finally {
      await ctx.db
        .update(projects)
        .set({ isFrozen: false, archivedAt: null })
        .where(eq(projects.id, w.projectId));
    }
  });

  it('a payment the network cannot refund is 422 with its reason', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    await ctx.db.delete(sandboxBankSessions).where(eq(sandboxBankSessions.transactionId, id));
    const r = await postRefund(ctx, w.caller, id);
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0]).toMatchObject({
      loc: ['path', 'transaction_id'],
      msg: 'The sandbox bank has no record of this payment, so it cannot refund it',
    });
  });

  it('payments.refund: owners and operations refund, developers do not', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const dev = await createTestClient(ctx, { role: 'developer', clientId: w.caller.clientId });
    expect((await readTransaction(ctx, dev, id)).allowed_actions).not.toContain('refund');
    const r = await postRefund(ctx, dev, id);
    expect(r.statusCode).toBe(403);
    const ops = await createTestClient(ctx, { role: 'operations', clientId: w.caller.clientId });
    expect((await readTransaction(ctx, ops, id)).allowed_actions).toContain('refund');
    expect((await postRefund(ctx, ops, id, { amount: '1.00' })).statusCode).toBe(201);
  });
});

describe('the sandbox magic amounts', () => {
  it('.52 is refused by the network at once: failed with the reason, payment untouched', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const r = await postRefund(ctx, w.caller, id, { amount: '1.52' });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ status: 'failed', failure_reason: SANDBOX_REFUND_REFUSED_REASON });
    expect(await readTransaction(ctx, w.caller, id)).toMatchObject({
      status: 'success',
      refunded_amount: '0.00',
      refundable_amount: '10.00',
    });
  });

  it('.54 fails at settlement with the reason; .53 stays processing until simulated', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const failing = (await postRefund(ctx, w.caller, id, { amount: '1.54' })).json();
    const held = (await postRefund(ctx, w.caller, id, { amount: '1.53' })).json();
    expect([failing.status, held.status]).toEqual(['processing', 'processing']);
    await settleRefunds(ctx);
    expect(await readRefund(ctx, w.caller, failing.refund_id)).toMatchObject({
      status: 'failed',
      failure_reason: SANDBOX_REFUND_RETURNED_REASON,
    });
    expect((await readRefund(ctx, w.caller, held.refund_id)).status).toBe('processing');
    expect((await readTransaction(ctx, w.caller, id)).refundable_amount).toBe('8.47');

    const sim = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/refunds/${held.refund_id}/simulate`,
      headers: w.caller.headers,
      payload: { outcome: 'succeeded' },
    });
    expect(sim.statusCode, sim.body).toBe(200);
    expect(sim.json()).toMatchObject({ status: 'succeeded', allowed_actions: [] });
    expect(await readTransaction(ctx, w.caller, id)).toMatchObject({
      refunded_amount: '1.53',
      refundable_amount: '8.47',
    });
    const again = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/refunds/${held.refund_id}/simulate`,
      headers: w.caller.headers,
      payload: { outcome: 'failed' },
    });
    expect(again.statusCode).toBe(409);
  });
});

describe('cancel', () => {
  it('cancels a refund not yet handed to the network; the submit job then sends nothing', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const r = (await postRefund(ctx, w.caller, id, { amount: '1.53' })).json();
    // As if the submit job had not run yet: pending, never submitted, unknown to the network.
    await ctx.db
      .update(refunds)
      .set({ status: 'pending', submittedAt: null })
      .where(eq(refunds.id, r.refund_id));
    await ctx.db.delete(sandboxBankRefunds).where(eq(sandboxBankRefunds.refundId, r.refund_id));
    expect((await readRefund(ctx, w.caller, r.refund_id)).allowed_actions).toEqual(['cancel']);
    const c = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/refunds/${r.refund_id}/cancel`,
      headers: w.caller.headers,
    });
    expect(c.statusCode, c.body).toBe(200);
    expect(c.json()).toMatchObject({ status: 'canceled', allowed_actions: [] });
    expect((await readTransaction(ctx, w.caller, id)).refundable_amount).toBe('10.00');
    await submitRefund(ctx.deps, r.refund_id);
    expect((await readRefund(ctx, w.caller, r.refund_id)).status).toBe('canceled');
    const sent = await ctx.db
      .select()
      .from(sandboxBankRefunds)
      .where(eq(sandboxBankRefunds.refundId, r.refund_id));
    expect(sent).toHaveLength(0);
    const twice = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/refunds/${r.refund_id}/cancel`,
      headers: w.caller.headers,
    });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().detail).toBe(RefundMessages.cannotCancel('canceled'));
  });

  it('a refund already submitted cannot be canceled (409), and a lost answer is retried with the same id', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const bank = sandboxBank(ctx);
    const real = bank.refunds.initiateRefund.bind(bank.refunds);
    // The network takes the refund but its answer is lost.
    const spy = vi.spyOn(bank.refunds, 'initiateRefund').mockImplementationOnce(async (input) => {
      await real(input);
      throw new BankProviderError('timeout');
    });
    try {
      const r = (await postRefund(ctx, w.caller, id, { amount: '2.00' })).json();
      expect(r.status).toBe('pending');
      expect(r.submitted_at).not.toBeNull();
      expect(r.allowed_actions).toEqual([]);
      const c = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/refunds/${r.refund_id}/cancel`,
        headers: w.caller.headers,
      });
      expect(c.statusCode).toBe(409);
      expect(c.json().detail).toBe(RefundMessages.alreadySubmitted);
      ctx.clock.advanceSeconds(10);
      await runJobs(ctx);
      expect((await readRefund(ctx, w.caller, r.refund_id)).status).toBe('processing');
      const rows = await ctx.db
        .select()
        .from(sandboxBankRefunds)
        .where(eq(sandboxBankRefunds.refundId, r.refund_id));
      expect(rows).toHaveLength(1);
      expect(spy).toHaveBeenCalledTimes(2);
      expect(spy.mock.calls[1]![0].refundId).toBe(r.refund_id);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the network side', () => {
  it('a notification is a hint: an unknown refund changes nothing, a known one is read back', async () => {
    const bank = sandboxBank(ctx);
    await bank.notify({
      refId: '00000000-0000-7000-8000-000000000000',
      transferId: null,
      providerStatus: 'succeeded',
      kind: 'refund',
    });
    const id = await paidPayment(ctx, w, '10.00');
    const r = (await postRefund(ctx, w.caller, id, { amount: '3.53' })).json();
    // A notification that claims success while the network still says processing moves nothing.
    await bank.notify({ refId: r.refund_id, transferId: null, providerStatus: 'succeeded', kind: 'refund' });
    await runJobs(ctx);
    expect((await readRefund(ctx, w.caller, r.refund_id)).status).toBe('processing');
  });

  it('the reconciliation sweep reads processing refunds every SVC_REFUND_RECONCILE_SECONDS', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const r = (await postRefund(ctx, w.caller, id, { amount: '4.53' })).json();
    // The network settles it and its notification is lost.
    await ctx.db
      .update(sandboxBankRefunds)
      .set({ status: 'succeeded' })
      .where(eq(sandboxBankRefunds.refundId, r.refund_id));
    await runWorker(ctx, 'refund-reconciliation');
    expect((await readRefund(ctx, w.caller, r.refund_id)).status).toBe('processing');
    ctx.clock.advanceSeconds(ctx.config.refundReconcileSeconds + 1);
    await runWorker(ctx, 'refund-reconciliation');
    expect((await readRefund(ctx, w.caller, r.refund_id)).status).toBe('succeeded');
    expect((await readTransaction(ctx, w.caller, id)).refunded_amount).toBe('4.53');
  });
});

describe('GET /refunds', () => {
  it('filters by status, transaction, project and dates, newest first, paginated', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    const a = (await postRefund(ctx, w.caller, id, { amount: '1.52' })).json(); // failed
    ctx.clock.advanceSeconds(60);
    const b = (await postRefund(ctx, w.caller, id, { amount: '1.53' })).json(); // processing
    const get = async (q: string) => {
      const r = await ctx.app.inject({ url: `/api/v1/refunds?${q}`, headers: w.caller.headers });
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    };
    const mine = await get(`transaction_id=${id}`);
    expect(mine.refunds.map((x: { refund_id: string }) => x.refund_id)).toEqual([b.refund_id, a.refund_id]);
    expect(mine.pagination.total).toBe(2);
    expect((await get(`transaction_id=${id}&status=failed`)).refunds).toHaveLength(1);
    expect((await get(`transaction_id=${id}&project_id=${w.projectId}`)).refunds).toHaveLength(2);
    const from = new Date(new Date(b.created_at).getTime() - 1000).toISOString();
    expect(
      (await get(`transaction_id=${id}&from=${from}`)).refunds.map((x: { refund_id: string }) => x.refund_id),
    ).toEqual([b.refund_id]);
    expect((await get(`transaction_id=${id}&to=${from}`)).refunds).toHaveLength(1);
    expect((await get(`transaction_id=${id}&page_size=1&page=2`)).refunds[0].refund_id).toBe(a.refund_id);
  });
});

describe('a network without refunds', () => {
  it('answers 422 with a sentence that says so, and writes nothing', async () => {
    const own = await createTestApp({
      providers: {
        bank: Object.defineProperty(
          new SandboxBank({ secret: 'refundless', publicUrl: 'http://localhost', sessionTtlSeconds: 600 }),
          'refunds',
          { value: undefined },
        ),
      },
    });
    try {
      const world = await createPaymentWorld(own);
      const id = await paidPayment(own, world, '10.00');
      const r = await postRefund(own, world.caller, id);
      expect(r.statusCode).toBe(422);
      expect(r.json().detail[0]).toMatchObject({
        loc: ['path', 'transaction_id'],
        msg: RefundMessages.networkCannotRefund,
      });
      expect(await own.db.select().from(refunds)).toHaveLength(0);
      // The payment still lists the action (the API names the reason): allowed_actions reads the row only.
      expect((await readTransaction(own, world.caller, id)).refundable_amount).toBe('10.00');
    } finally {
      await own.close();
    }
  });
});
