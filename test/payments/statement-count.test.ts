/**
 * Issue 12: what a payment creation and an authenticated read cost in database statements, so the
 * hot paths cannot silently regress; and the single creation statement writes nothing once its
 * idempotency claim is lost.
 */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { ASYNC_COMMIT } from '../../src/db/hot';
import {
  activityLogs,
  paymentIdempotencyKeys,
  transactionStatusEvents,
  transactions,
} from '../../src/db/schema/index';
import { claimKeyWithFacts, insertPaymentLink } from '../../src/modules/payments/paylink.statements';
import { newId } from '../../src/shared/ids';
import { recordStatements } from '../helpers/statement-count';
import { paymentApp } from '../helpers/suites';
import { newKey, paylinkBody } from './fixtures';

const suite = paymentApp();

async function statementsOf(run: () => Promise<{ statusCode: number }>, status: number) {
  const log = recordStatements();
  try {
    expect((await run()).statusCode).toBe(status);
  } finally {
    log.stop();
  }
  return log.texts;
}

const create = (key = newKey()) =>
  suite.ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...suite.w.caller.headers, 'x-idempotency-key': key },
    payload: paylinkBody(suite.w, { metadata: { order: 7 } }),
  });

describe('statements per request', () => {
  it('a payment creation is four statements and no explicit transaction', async () => {
    await create(); // first use of the named statements on this connection is not special, but warm anyway
    const texts = await statementsOf(() => create(), 201);
    // token state; idempotency claim + business facts; the sandbox bank session; the payment with
    // its timeline row, activity entry and claim completion.
    expect(texts).toHaveLength(4);
    expect(texts.some((t) => /^\s*(begin|commit)/i.test(t))).toBe(false);
  });

  it('the creation still commits its timeline row, activity entry and completed claim', async () => {
    const key = newKey();
    const res = await create(key);
    const id = res.json().transaction_id as string;
    const events = await suite.ctx.db
      .select()
      .from(transactionStatusEvents)
      .where(eq(transactionStatusEvents.transactionId, id));
    expect(events).toMatchObject([
      { kind: 'created', fromStatus: null, toStatus: 'pending', providerStatus: 'initiated' },
    ]);
    const [entry] = await suite.ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.targetId, id), eq(activityLogs.action, 'payment_link.created')));
    expect(entry).toMatchObject({
      clientId: suite.w.caller.clientId,
      method: 'POST',
      path: '/api/v1/checkout/paylink',
    });
    const [claim] = await suite.ctx.db
      .select()
      .from(paymentIdempotencyKeys)
      .where(eq(paymentIdempotencyKeys.idempotencyKey, key));
    expect(claim).toMatchObject({ state: 'completed', transactionId: id });
  });

  it('a replay costs the full claim procedure and no write', async () => {
    const key = newKey();
    await create(key);
    const texts = await statementsOf(() => create(key), 200);
    expect(texts.filter((t) => /^\s*(insert into transactions|with done)/i.test(t))).toHaveLength(0);
  });

  it('an authenticated GET /transactions/{id} is one statement (the read rides on the token check)', async () => {
    const id = (await create()).json().transaction_id as string;
    const texts = await statementsOf(
      () =>
        suite.ctx.app.inject({
          method: 'GET',
          url: `/api/v1/transactions/${id}`,
          headers: suite.w.caller.headers,
        }),
      200,
    );
    expect(texts).toHaveLength(1);
  });

  it('GET /transactions/{id} of another client or of no transaction is 404 in one statement', async () => {
    const texts = await statementsOf(
      () =>
        suite.ctx.app.inject({
          method: 'GET',
          url: `/api/v1/transactions/${newId()}`,
          headers: suite.w.caller.headers,
        }),
      404,
    );
    expect(texts).toHaveLength(1);
  });

  it('the first page of GET /transactions, unfiltered or by status, is two statements with its exact total', async () => {
    await create();
    const pending = await suite.ctx.db
      .select()
      .from(transactions)
      .where(and(eq(transactions.clientId, suite.w.caller.clientId), eq(transactions.status, 'pending')));
    let body: { transactions: unknown[]; pagination: { total: number } } | undefined;
    const texts = await statementsOf(async () => {
      const res = await suite.ctx.app.inject({
        method: 'GET',
        url: '/api/v1/transactions?status=pending&page_size=1',
        headers: suite.w.caller.headers,
      });
      body = res.json();
      return res;
    }, 200);
    // token state; the page with its total
    expect(texts).toHaveLength(2);
    expect(body?.transactions).toHaveLength(1);
    expect(body?.pagination.total).toBe(pending.length);
  });
});

describe('asynchronous commits on the creation path', () => {
  const syncCommit = async () =>
    (
      await suite.ctx.deps.database.query<{ v: string }>(
        't_sync_commit',
        `select current_setting('synchronous_commit') as v`,
        [],
      )
    )[0]?.v;

  it('ASYNC_COMMIT turns synchronous_commit off for its own statement only', async () => {
    const [inside] = await suite.ctx.deps.database.query<{ v: string }>(
      't_async_commit',
      `select current_setting('synchronous_commit') as v from ${ASYNC_COMMIT} as async`,
      [],
    );
    expect(inside?.v).toBe('off');
    // The next statement on any pooled connection commits synchronously again.
    for (let i = 0; i < 12; i++) expect(await syncCommit()).toBe('on');
    const inTx = await suite.ctx.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`select 1 from ${ASYNC_COMMIT} as async`));
      return tx.execute(sql`select current_setting('synchronous_commit') as v`);
    });
    expect((inTx as unknown as { rows: { v: string }[] }).rows[0]?.v).toBe('off'); // the rest of that transaction
    expect(await syncCommit()).toBe('on');
  });

  it('only the claim and the sandbox session commit asynchronously; the payment commits synchronously', async () => {
    const texts = await statementsOf(() => create(), 201);
    const asyncTexts = texts.filter((t) => t.includes(ASYNC_COMMIT));
    expect(asyncTexts).toHaveLength(2);
    expect(asyncTexts.some((t) => /insert into payment_idempotency_keys/i.test(t))).toBe(true);
    expect(asyncTexts.some((t) => /insert into sandbox_bank_sessions/i.test(t))).toBe(true);
    const payment = texts.find((t) => /insert into transactions/i.test(t));
    expect(payment).toBeDefined();
    expect(payment).not.toContain('synchronous_commit');
    expect(await syncCommit()).toBe('on');
  });
});

describe('the creation statement', () => {
  it('writes nothing when its claim was released and taken over meanwhile', async () => {
    const now = suite.ctx.clock.now();
    const body = paylinkBody(suite.w);
    const fast = await claimKeyWithFacts(suite.ctx.deps.database, {
      clientId: suite.w.caller.clientId,
      key: newKey(),
      scope: 'api',
      fingerprint: 'f',
      now,
      body,
    });
    expect(fast.claimId).not.toBeNull();
    expect(fast.facts).toMatchObject({ project_found: true, payer_exists: true, opco_status: 'activated' });
    await suite.ctx.db.delete(paymentIdempotencyKeys).where(eq(paymentIdempotencyKeys.id, fast.claimId!));
    const id = newId();
    const row = await insertPaymentLink(suite.ctx.deps.database, {
      id,
      clientId: suite.w.caller.clientId,
      claimId: fast.claimId!,
      body,
      amount: '125.50',
      currency: 'EUR',
      origin: { type: 'paylink', id: null },
      contractRequestId: null,
      refId: `ref_${newId()}`,
      expiresAt: now,
      now,
      actor: { actorType: 'client_user', actorAccountId: null },
      activity: { clientId: suite.w.caller.clientId, action: 'payment_link.created', at: now },
    });
    expect(row).toBeNull();
    expect(await suite.ctx.db.select().from(transactions).where(eq(transactions.id, id))).toHaveLength(0);
    expect(
      await suite.ctx.db
        .select()
        .from(transactionStatusEvents)
        .where(eq(transactionStatusEvents.transactionId, id)),
    ).toHaveLength(0);
    expect(await suite.ctx.db.select().from(activityLogs).where(eq(activityLogs.targetId, id))).toHaveLength(
      0,
    );
  });

  it('reports a missing client as no facts (and a taken key as no claim)', async () => {
    const key = newKey();
    const c = {
      clientId: newId(),
      key,
      scope: 'api',
      fingerprint: 'f',
      now: suite.ctx.clock.now(),
      body: paylinkBody(suite.w),
    };
    await expect(claimKeyWithFacts(suite.ctx.deps.database, c)).rejects.toThrow(); // no such client: FK
    const mine = { ...c, clientId: suite.w.caller.clientId };
    expect((await claimKeyWithFacts(suite.ctx.deps.database, mine)).claimId).not.toBeNull();
    const again = await claimKeyWithFacts(suite.ctx.deps.database, mine);
    expect(again.claimId).toBeNull();
    expect(again.facts?.company_name).toBeTruthy();
  });
});
