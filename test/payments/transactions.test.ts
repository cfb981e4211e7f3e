/** Reads, refresh-status, cancel, link expiry (sweeper), session restart and the confirmation window. */
import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { transactions } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { M } from '../../src/shared/messages';
import { createWorkers } from '../../src/workers/index';
import { createTestApp } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import {
  createPaylink,
  createPaymentWorld,
  insertProject,
  insertUser,
  type PaymentWorld,
  pickBank,
  simulate,
  tokenOf,
} from './fixtures';

const suite = paymentApp();
// tests move the clock by hours: give the shared caller a fresh token for each test
beforeEach(async () => {
  suite.w.caller = await createTestClient(suite.ctx, { clientId: suite.w.caller.clientId });
});

const get = (url: string, headers = suite.w.caller.headers) => suite.ctx.app.inject({ url, headers });
const post = (url: string, headers = suite.w.caller.headers) =>
  suite.ctx.app.inject({ method: 'POST', url, headers });

describe('GET /transactions', () => {
  let lw: PaymentWorld;
  let ids: string[];
  let project2: string;
  let user2: string;
  beforeAll(async () => {
    lw = await createPaymentWorld(suite.ctx);
    project2 = await insertProject(suite.ctx, lw.caller.clientId, lw.opcoId);
    user2 = await insertUser(suite.ctx, lw.caller.clientId);
    ids = [];
    for (let i = 0; i < 5; i++) {
      suite.ctx.clock.advanceSeconds(1);
      ids.push(
        (await createPaylink(suite.ctx, lw, i % 2 ? { project_id: project2, user_id: user2 } : {}))
          .transaction_id,
      );
    }
    await simulate(suite.ctx, lw, ids[0]!, 'awaiting_bank_authorization');
  });

  it('newest first with the pagination envelope', async () => {
    const r = await get('/api/v1/transactions?page_size=2', lw.caller.headers);
    expect(r.statusCode).toBe(200);
    const b = r.json();
    expect(b.transactions.map((t: { transaction_id: string }) => t.transaction_id)).toEqual([ids[4], ids[3]]);
    expect(b.pagination).toEqual({ total: 5, page: 1, page_size: 2, total_pages: 3 });
    const p3 = (await get('/api/v1/transactions?page_size=2&page=3', lw.caller.headers)).json();
    expect(p3.transactions.map((t: { transaction_id: string }) => t.transaction_id)).toEqual([ids[0]]);
  });

  it('default page_size 10, maximum 200 (above is 422)', async () => {
    expect((await get('/api/v1/transactions', lw.caller.headers)).json().pagination.page_size).toBe(10);
    expect((await get('/api/v1/transactions?page_size=200', lw.caller.headers)).statusCode).toBe(200);
    const r = await get('/api/v1/transactions?page_size=201', lw.caller.headers);
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0].loc).toEqual(['query', 'page_size']);
    expect((await get('/api/v1/transactions?status=nope', lw.caller.headers)).statusCode).toBe(422);
  });

  it('filters by status, project_id and user_id before paginating', async () => {
    const byStatus = (await get('/api/v1/transactions?status=processing', lw.caller.headers)).json();
    expect(byStatus.transactions.map((t: { transaction_id: string }) => t.transaction_id)).toEqual([ids[0]]);
    expect(byStatus.pagination.total).toBe(1);
    const byProject = (await get(`/api/v1/transactions?project_id=${project2}`, lw.caller.headers)).json();
    expect(byProject.pagination.total).toBe(2);
    const byUser = (
      await get(`/api/v1/transactions?user_id=${user2}&status=pending`, lw.caller.headers)
    ).json();
    expect(byUser.transactions.map((t: { transaction_id: string }) => t.transaction_id)).toEqual([
      ids[3],
      ids[1],
    ]);
    const empty = (await get('/api/v1/transactions?status=success', lw.caller.headers)).json();
    expect(empty).toEqual({
      transactions: [],
      pagination: { total: 0, page: 1, page_size: 10, total_pages: 0 },
    });
  });

  it('another client sees none of them; developers can read', async () => {
    const other = await createPaymentWorld(suite.ctx);
    expect((await get('/api/v1/transactions', other.caller.headers)).json().pagination.total).toBe(0);
    const r = await get(`/api/v1/transactions/${ids[0]}`, other.caller.headers);
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: M.transactionNotFound });
    expect((await get(`/api/v1/transactions/${ids[0]}/status-events`, other.caller.headers)).statusCode).toBe(
      404,
    );
    expect(
      (await post(`/api/v1/transactions/${ids[0]}/refresh-status`, other.caller.headers)).statusCode,
    ).toBe(404);
    expect((await post(`/api/v1/checkout/intent/${ids[0]}/cancel`, other.caller.headers)).statusCode).toBe(
      404,
    );
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: lw.caller.clientId });
    expect((await get(`/api/v1/transactions/${ids[0]}`, dev.headers)).statusCode).toBe(200);
    expect((await post(`/api/v1/checkout/intent/${ids[0]}/cancel`, dev.headers)).statusCode).toBe(403);
  });

  it('a malformed id is 422 with a path loc', async () => {
    const r = await get('/api/v1/transactions/not-a-uuid');
    expect(r.statusCode).toBe(422);
    expect(r.json().detail[0].loc).toEqual(['path', 'transaction_id']);
  });
});

describe('status-events', () => {
  it('lists the full timeline oldest first, each with provider_status', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    await pickBank(suite.ctx, t.checkout_url);
    await simulate(suite.ctx, suite.w, t.transaction_id, 'authorized');
    await simulate(suite.ctx, suite.w, t.transaction_id, 'completed');
    const r = (await get(`/api/v1/transactions/${t.transaction_id}/status-events`)).json();
    expect(r.status_events.map((e: { provider_status: string }) => e.provider_status)).toEqual([
      'initiated',
      'awaiting_bank_authorization',
      'authorized',
      'completed',
    ]);
    expect(r.status_events[0]).toMatchObject({ kind: 'created', previous_status: null, status: 'pending' });
  });
});

describe('refresh-status', () => {
  it('terminal is 400, no upstream id is 400', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    let r = await post(`/api/v1/transactions/${t.transaction_id}/refresh-status`);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ detail: M.noUpstreamId });
    await simulate(suite.ctx, suite.w, t.transaction_id, 'canceled');
    r = await post(`/api/v1/transactions/${t.transaction_id}/refresh-status`);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ detail: M.terminalCannotRefresh });
  });

  it('polls the network, applies its status, and enforces the cooldown with Retry-After', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    await pickBank(suite.ctx, t.checkout_url);
    let r = await post(`/api/v1/transactions/${t.transaction_id}/refresh-status`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'processing', provider_status: 'awaiting_bank_authorization' });
    expect(r.headers['retry-after']).toBeUndefined();
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();

    suite.ctx.clock.advanceSeconds(4);
    r = await post(`/api/v1/transactions/${t.transaction_id}/refresh-status`);
    expect(r.statusCode).toBe(429);
    expect(r.json()).toEqual({ detail: M.refreshTooSoon });
    expect(r.headers['retry-after']).toBe('6');
    expect(r.headers['x-ratelimit-limit']).toBe('1');
    expect(r.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(r.headers['x-ratelimit-reset'])).toBe(
      Math.ceil(suite.ctx.clock.now().getTime() / 1000) + 6,
    );

    // the bank settled the payment but its notification never arrived: refresh reconciles
    const { sandboxBankSessions } = await import('../../src/db/schema/index');
    await suite.ctx.db
      .update(sandboxBankSessions)
      .set({ providerStatus: 'completed' })
      .where(eq(sandboxBankSessions.refId, t.ref_id));
    suite.ctx.clock.advanceSeconds(6);
    r = await post(`/api/v1/transactions/${t.transaction_id}/refresh-status`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'success', provider_status: 'completed' });
    const events = (await get(`/api/v1/transactions/${t.transaction_id}/status-events`)).json().status_events;
    expect(events[events.length - 1]).toMatchObject({
      actor_type: 'client_user',
      provider_status: 'completed',
    });
  });

  it('the cooldown is per transaction and held in the database (a second node sees it)', async () => {
    const a = await createPaylink(suite.ctx, suite.w);
    const b = await createPaylink(suite.ctx, suite.w);
    await pickBank(suite.ctx, a.checkout_url);
    await pickBank(suite.ctx, b.checkout_url);
    expect((await post(`/api/v1/transactions/${a.transaction_id}/refresh-status`)).statusCode).toBe(200);
    expect((await post(`/api/v1/transactions/${b.transaction_id}/refresh-status`)).statusCode).toBe(200);
    const node2 = await createTestApp({ database: suite.ctx.deps.database });
    try {
      node2.clock.set(suite.ctx.clock.now());
      const r = await node2.app.inject({
        method: 'POST',
        url: `/api/v1/transactions/${a.transaction_id}/refresh-status`,
        headers: suite.w.caller.headers,
      });
      expect(r.statusCode).toBe(429);
    } finally {
      await node2.close();
    }
  });
});

describe('cancel', () => {
  it('cancels pending and processing; terminal is 409', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    let r = await post(`/api/v1/checkout/intent/${t.transaction_id}/cancel`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'canceled', status_reason: 'Canceled by the merchant' });
    r = await post(`/api/v1/checkout/intent/${t.transaction_id}/cancel`);
    expect(r.statusCode).toBe(409);
    expect(r.json()).toEqual({ detail: PaymentMessages.terminalCannotCancel });

    const p = await createPaylink(suite.ctx, suite.w);
    const bankUrl = await pickBank(suite.ctx, p.checkout_url);
    r = await post(`/api/v1/checkout/intent/${p.transaction_id}/cancel`);
    expect(r.json().status).toBe('canceled');
    // the bank session is closed too: the payer can no longer approve
    const page = await suite.ctx.app.inject({ url: new URL(bankUrl).pathname });
    expect(page.statusCode).toBe(410);
  });

  it('a terminal transaction cannot start a new checkout (409)', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    await post(`/api/v1/checkout/intent/${t.transaction_id}/cancel`);
    const r = await suite.ctx.app.inject({
      method: 'POST',
      url: `/checkout/${tokenOf(t.checkout_url)}/bank`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'bank_id=sandbox-bank',
    });
    expect(r.statusCode).toBe(409);
    expect(r.body).toContain(M.terminalCannotCheckout);
  });
});

describe('link expiry', () => {
  it('the sweeper moves pending links past expires_at to expired, with an event', async () => {
    const ew = await createPaymentWorld(suite.ctx);
    const short = await createPaylink(suite.ctx, ew, { expires_in_seconds: 600 });
    const long = await createPaylink(suite.ctx, ew, { expires_in_seconds: 7200 });
    const started = await createPaylink(suite.ctx, ew, { expires_in_seconds: 600 });
    await pickBank(suite.ctx, started.checkout_url);
    // Link expiry is a timer job: the jobs runner's tick runs it.
    const sweeper = createWorkers(suite.ctx.deps).find((x) => x.name === 'jobs')!;
    await sweeper.runOnce();
    expect((await get(`/api/v1/transactions/${short.transaction_id}`, ew.caller.headers)).json().status).toBe(
      'pending',
    );
    suite.ctx.clock.advanceSeconds(601);
    while ((await sweeper.runOnce()) > 0);
    const s = (await get(`/api/v1/transactions/${short.transaction_id}`, ew.caller.headers)).json();
    expect(s).toMatchObject({
      status: 'expired',
      provider_status: 'expired',
      status_reason: 'Payment link expired',
    });
    expect(s.completed_at).toBe(short.expires_at);
    expect((await get(`/api/v1/transactions/${long.transaction_id}`, ew.caller.headers)).json().status).toBe(
      'pending',
    );
    // a processing payment whose bank session ended without a final status timed out at the bank
    expect(
      (await get(`/api/v1/transactions/${started.transaction_id}`, ew.caller.headers)).json(),
    ).toMatchObject({
      status: 'expired',
      provider_status: 'no_final_status',
      status_reason: 'Bank authentication timed out',
    });
    const events = (
      await get(`/api/v1/transactions/${short.transaction_id}/status-events`, ew.caller.headers)
    ).json();
    expect(events.status_events.at(-1)).toMatchObject({
      previous_status: 'pending',
      status: 'expired',
      actor_type: null,
    });
  });

  it('a processing payment still inside its bank window is left alone; a final network status is applied', async () => {
    const ew = await createPaymentWorld(suite.ctx);
    const open = await createPaylink(suite.ctx, ew, { expires_in_seconds: 3600 });
    const settled = await createPaylink(suite.ctx, ew, { expires_in_seconds: 3600 });
    await pickBank(suite.ctx, open.checkout_url);
    await pickBank(suite.ctx, settled.checkout_url);
    const { sandboxBankSessions } = await import('../../src/db/schema/index');
    // the network completed this one but its notification was lost
    await suite.ctx.db
      .update(sandboxBankSessions)
      .set({ providerStatus: 'completed' })
      .where(eq(sandboxBankSessions.refId, settled.ref_id));
    // the link lapses while the bank window of `open` is artificially still open
    await suite.ctx.db
      .update(sandboxBankSessions)
      .set({ expiresAt: new Date(suite.ctx.clock.now().getTime() + 7200_000) })
      .where(eq(sandboxBankSessions.refId, open.ref_id));
    suite.ctx.clock.advanceSeconds(3601);
    ew.caller = await createTestClient(suite.ctx, { clientId: ew.caller.clientId });
    // Link expiry is a timer job: the jobs runner's tick runs it.
    const sweeper = createWorkers(suite.ctx.deps).find((x) => x.name === 'jobs')!;
    await sweeper.runOnce();
    expect((await get(`/api/v1/transactions/${open.transaction_id}`, ew.caller.headers)).json().status).toBe(
      'processing',
    );
    expect(
      (await get(`/api/v1/transactions/${settled.transaction_id}`, ew.caller.headers)).json(),
    ).toMatchObject({
      status: 'success',
      provider_status: 'completed',
    });
  });

  it('the checkout page expires a lapsed link without waiting for the sweeper', async () => {
    const t = await createPaylink(suite.ctx, suite.w, { expires_in_seconds: 60 });
    suite.ctx.clock.advanceSeconds(61);
    const page = await suite.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Payment link expired');
    expect((await get(`/api/v1/transactions/${t.transaction_id}`)).json().status).toBe('expired');
  });
});

describe('bank session', () => {
  it('awaiting_provider_confirmation between the session request and the bank acknowledgement', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    const bank = suite.ctx.deps.providers.bank;
    const original = bank.startAuthorization.bind(bank);
    let seen: string | undefined;
    bank.startAuthorization = async (input) => {
      const [row] = await suite.ctx.db
        .select()
        .from(transactions)
        .where(eq(transactions.id, t.transaction_id));
      seen = row!.reconciliationState;
      return original(input);
    };
    try {
      await pickBank(suite.ctx, t.checkout_url);
    } finally {
      bank.startAuthorization = original;
    }
    expect(seen).toBe('awaiting_provider_confirmation');
    expect((await get(`/api/v1/transactions/${t.transaction_id}`)).json()).toMatchObject({
      status: 'processing',
      reconciliation_state: 'none',
    });
  });

  it('an expired bank session can be restarted: new ref_id, transfer_id reset then reassigned', async () => {
    const t = await createPaylink(suite.ctx, suite.w);
    const firstBank = await pickBank(suite.ctx, t.checkout_url);
    const first = (await get(`/api/v1/transactions/${t.transaction_id}`)).json();
    expect(first.transfer_id).toMatch(/^trf_/);
    // within the window the checkout offers to continue at the bank
    let page = await suite.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.body).toContain('Continue at your bank');
    suite.ctx.clock.advanceSeconds(suite.ctx.config.bankSessionTtlSeconds + 1);
    expect((await suite.ctx.app.inject({ url: new URL(firstBank).pathname })).statusCode).toBe(410);
    page = await suite.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.body).toContain('Your previous bank session expired');
    const secondBank = await pickBank(suite.ctx, t.checkout_url, 'northwind-bank');
    const second = (await get(`/api/v1/transactions/${t.transaction_id}`)).json();
    expect(second.status).toBe('processing');
    expect(second.ref_id).not.toBe(first.ref_id);
    expect(second.transfer_id).not.toBe(first.transfer_id);
    const events = (await get(`/api/v1/transactions/${t.transaction_id}/status-events`)).json().status_events;
    expect(events.some((e: { kind: string }) => e.kind === 'session_restarted')).toBe(true);
    // a late notification on the old session is not applied
    await suite.ctx.deps.providers.bank.simulate!(first.ref_id, 'completed');
    expect((await get(`/api/v1/transactions/${t.transaction_id}`)).json().status).toBe('processing');
    // the new session completes the payment
    const done = await suite.ctx.app.inject({
      method: 'POST',
      url: new URL(secondBank).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=approve',
    });
    expect(done.statusCode).toBe(303);
    expect((await get(`/api/v1/transactions/${t.transaction_id}`)).json().status).toBe('success');
  });
});
