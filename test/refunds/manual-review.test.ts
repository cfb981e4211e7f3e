/**
 * Refunds held for manual review, with a fake RefundNetwork: a read that says the network cannot
 * tell whether the money moved (`needsReview`), and a submission that finds an earlier attempt it
 * cannot resolve (RefundNeedsReviewError). The refund stays processing with its amount held,
 * `reconciliation_state` manual_review_required, one event, a critical notification and an
 * activity entry; the submit job never sends it again; the sweep reads it at the slow cadence and
 * a final status clears the review.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { events } from '../../src/db/schema/index';
import {
  type RefundInput,
  RefundNeedsReviewError,
  type RefundNetwork,
  type RefundRead,
} from '../../src/providers/bank/port';
import { SandboxBank } from '../../src/providers/bank/simulator';
import { createTestApp, type TestContext } from '../helpers/app';
import { runJobs } from '../helpers/jobs';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { paidPayment, postRefund, readRefund, readTransaction, runWorker } from './fixtures';

const NO_FINAL = 'The bank gave no final status for the refund; the money may have been sent';
const UNRESOLVED = 'An earlier attempt may have reached the bank and cannot be found';

/** A network whose answers each test sets. */
const fake = {
  initiate: vi.fn<(input: RefundInput) => Promise<RefundRead>>(),
  read: vi.fn<(ref: { refundId: string }) => Promise<RefundRead | null>>(),
};
const network: RefundNetwork = {
  refundProblem: async () => null,
  initiateRefund: (input) => fake.initiate(input),
  getRefund: (ref) => fake.read(ref),
};

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp({
    // Short cadences, so the test clock never passes the caller's access token.
    env: { SVC_REFUND_RECONCILE_SECONDS: '60', SVC_REFUND_REVIEW_RECONCILE_SECONDS: '300' },
    providers: {
      bank: Object.defineProperty(
        new SandboxBank({ secret: 'review', publicUrl: 'http://localhost', sessionTtlSeconds: 600 }),
        'refunds',
        { value: network },
      ),
    },
  });
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx?.close());
beforeEach(() => {
  fake.initiate.mockReset();
  fake.read.mockReset();
});

const read = (over: Partial<RefundRead>): RefundRead => ({
  networkRefundId: null,
  outcome: 'processing',
  providerStatus: 'INITIATION_PROCESSING',
  reason: null,
  ...over,
});

async function statusEvents(refundId: string) {
  const rows = await ctx.db
    .select()
    .from(events)
    .where(eq(events.type, 'refund.status_changed'))
    .orderBy(events.createdAt, events.id);
  return rows
    .map((e) => e.data as Record<string, unknown>)
    .filter((d) => d.refund_id === refundId)
    .map((d) => `${d.previous_status}->${d.current_status}:${d.reconciliation_state}`);
}

async function reviewNotes(refundId: string) {
  return rowsOf<{ title: string; severity: string }>(
    await ctx.db.execute(sql`select title, severity from notifications
      where client_id = ${w.caller.clientId}::uuid and title like ${`Refund ${refundId}%`}`),
  );
}

async function actions(refundId: string) {
  return rowsOf<{ action: string }>(
    await ctx.db.execute(sql`select action from activity_logs
      where client_id = ${w.caller.clientId}::uuid and target_id = ${refundId}`),
  )
    .map((a) => a.action)
    .sort();
}

async function listHeld() {
  const r = await ctx.app.inject({
    url: '/api/v1/refunds?reconciliation_state=manual_review_required',
    headers: w.caller.headers,
  });
  expect(r.statusCode, r.body).toBe(200);
  return r.json().refunds.map((x: { refund_id: string }) => x.refund_id) as string[];
}

describe('a read that cannot tell whether the money moved (needsReview)', () => {
  it('holds the refund processing for review, reads it at the slow cadence, and a final status clears it', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    fake.initiate.mockResolvedValue(
      read({
        networkRefundId: 'nr-1',
        providerStatus: 'INITIATION_NO_FINAL_STATUS_AVAILABLE',
        needsReview: NO_FINAL,
      }),
    );
    const res = await postRefund(ctx, w.caller, id, { amount: '4.00' });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json();
    expect(r).toMatchObject({
      status: 'processing',
      reconciliation_state: 'manual_review_required',
      review_reason: NO_FINAL,
      failure_reason: null,
    });
    // The money may have moved: the amount stays held against the payment.
    const t = await readTransaction(ctx, w.caller, id);
    expect([t.refundable_amount, t.refunded_amount]).toEqual(['6.00', '0.00']);
    expect(await statusEvents(r.refund_id)).toEqual([
      'pending->processing:none',
      'processing->processing:manual_review_required',
    ]);
    expect(await reviewNotes(r.refund_id)).toContainEqual({
      title: `Refund ${r.refund_id} needs a manual review`,
      severity: 'critical',
    });
    expect(await actions(r.refund_id)).toContain('refund.manual_review_required');
    expect(await listHeld()).toContain(r.refund_id);

    // The same answer again writes nothing more.
    fake.read.mockResolvedValue(
      read({
        networkRefundId: 'nr-1',
        providerStatus: 'INITIATION_NO_FINAL_STATUS_AVAILABLE',
        needsReview: NO_FINAL,
      }),
    );
    // The normal cadence passes: a held refund is not read.
    ctx.clock.advanceSeconds(ctx.config.refundReconcileSeconds + 1);
    await runWorker(ctx, 'refund-reconciliation');
    expect(fake.read).not.toHaveBeenCalled();
    // The slow cadence: read again, still no final status, nothing new.
    ctx.clock.advanceSeconds(ctx.config.refundReviewReconcileSeconds);
    await runWorker(ctx, 'refund-reconciliation');
    expect(fake.read).toHaveBeenCalledTimes(1);
    expect(await statusEvents(r.refund_id)).toHaveLength(2);

    // The bank reports late: succeeded, the review cleared.
    fake.read.mockResolvedValue(
      read({ networkRefundId: 'nr-1', outcome: 'succeeded', providerStatus: 'INITIATION_COMPLETED' }),
    );
    ctx.clock.advanceSeconds(ctx.config.refundReviewReconcileSeconds + 1);
    await runWorker(ctx, 'refund-reconciliation');
    expect(await readRefund(ctx, w.caller, r.refund_id)).toMatchObject({
      status: 'succeeded',
      reconciliation_state: 'none',
      review_reason: null,
    });
    expect((await statusEvents(r.refund_id)).at(-1)).toBe('processing->succeeded:none');
    expect((await readTransaction(ctx, w.caller, id)).refunded_amount).toBe('4.00');
    expect(await listHeld()).not.toContain(r.refund_id);
  });
});

describe('a submission that finds an earlier attempt it cannot resolve (RefundNeedsReviewError)', () => {
  it('is never sent again; held for review; a later failed read releases the amount', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    fake.initiate.mockRejectedValue(new RefundNeedsReviewError(UNRESOLVED));
    const res = await postRefund(ctx, w.caller, id, { amount: '3.00' });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json();
    expect(r).toMatchObject({
      status: 'processing',
      reconciliation_state: 'manual_review_required',
      review_reason: UNRESOLVED,
    });
    expect(r.allowed_actions).not.toContain('cancel');
    expect((await readTransaction(ctx, w.caller, id)).refundable_amount).toBe('7.00');
    // The submit job is done: time passes, the jobs run, no second POST.
    ctx.clock.advanceSeconds(120);
    await runJobs(ctx);
    expect(fake.initiate).toHaveBeenCalledTimes(1);
    expect(await reviewNotes(r.refund_id)).toContainEqual({
      title: `Refund ${r.refund_id} needs a manual review`,
      severity: 'critical',
    });
    expect(await actions(r.refund_id)).toEqual([
      'refund.created',
      'refund.manual_review_required',
      'refund.processing',
    ]);
    expect(await listHeld()).toContain(r.refund_id);

    fake.read.mockResolvedValue(
      read({
        outcome: 'failed',
        providerStatus: 'INITIATION_REJECTED',
        reason: 'The bank rejected the refund',
      }),
    );
    ctx.clock.advanceSeconds(ctx.config.refundReviewReconcileSeconds + 1);
    await runWorker(ctx, 'refund-reconciliation');
    expect(fake.read).toHaveBeenCalledWith(expect.objectContaining({ refundId: r.refund_id }));
    expect(await readRefund(ctx, w.caller, r.refund_id)).toMatchObject({
      status: 'failed',
      failure_reason: 'The bank rejected the refund',
      reconciliation_state: 'none',
      review_reason: null,
    });
    const t = await readTransaction(ctx, w.caller, id);
    expect([t.refundable_amount, t.refunded_amount]).toEqual(['10.00', '0.00']);
    expect(fake.initiate).toHaveBeenCalledTimes(1);
  });
});

describe('a read that throws RefundNeedsReviewError', () => {
  it('holds a processing refund for review; the sweep then reads it at the slow cadence', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    fake.initiate.mockResolvedValue(read({ networkRefundId: 'nr-3' }));
    const r = (await postRefund(ctx, w.caller, id, { amount: '2.00' })).json();
    expect(r).toMatchObject({ status: 'processing', reconciliation_state: 'none' });
    fake.read.mockRejectedValue(new RefundNeedsReviewError(UNRESOLVED));
    ctx.clock.advanceSeconds(ctx.config.refundReconcileSeconds + 1);
    await runWorker(ctx, 'refund-reconciliation');
    expect(await readRefund(ctx, w.caller, r.refund_id)).toMatchObject({
      status: 'processing',
      reconciliation_state: 'manual_review_required',
      review_reason: UNRESOLVED,
    });
    expect((await statusEvents(r.refund_id)).at(-1)).toBe('processing->processing:manual_review_required');
    const calls = fake.read.mock.calls.length;
    ctx.clock.advanceSeconds(ctx.config.refundReconcileSeconds + 1);
    await runWorker(ctx, 'refund-reconciliation');
    expect(fake.read.mock.calls.length).toBe(calls);
    ctx.clock.advanceSeconds(ctx.config.refundReviewReconcileSeconds);
    await runWorker(ctx, 'refund-reconciliation');
    expect(fake.read.mock.calls.length).toBe(calls + 1);
    expect(await statusEvents(r.refund_id)).toHaveLength(2);
  });
});

describe('what the network is told was refunded before', () => {
  it('passes the other refunds that may have reached it (succeeded and held), never this one', async () => {
    const id = await paidPayment(ctx, w, '10.00');
    fake.initiate.mockResolvedValueOnce(
      read({ networkRefundId: 'nr-a1', outcome: 'succeeded', providerStatus: 'INITIATION_COMPLETED' }),
    );
    expect((await postRefund(ctx, w.caller, id, { amount: '2.50' })).statusCode).toBe(201);
    fake.initiate.mockResolvedValueOnce(read({ networkRefundId: 'nr-a2' }));
    expect((await postRefund(ctx, w.caller, id, { amount: '3.00' })).statusCode).toBe(201);
    fake.initiate.mockResolvedValueOnce(read({ networkRefundId: 'nr-a3' }));
    expect((await postRefund(ctx, w.caller, id, { amount: '1.00' })).statusCode).toBe(201);
    expect(fake.initiate.mock.calls.map(([input]) => [input.amount, input.alreadyRefunded])).toEqual([
      ['2.50', '0.00'],
      ['3.00', '2.50'],
      // 2.50 succeeded plus 3.00 still processing at the network.
      ['1.00', '5.50'],
    ]);
  });
});
