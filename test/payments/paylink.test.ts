/** POST /checkout/paylink: validation, business checks, idempotency (incl. a concurrent burst and two API nodes). */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { paymentIdempotencyKeys, transactions } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { BankProviderError } from '../../src/providers/bank/port';
import { M } from '../../src/shared/messages';
import { createTestApp } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import {
  createPaylink,
  createPaymentWorld,
  insertOpco,
  insertProject,
  newKey,
  paylinkBody,
  setClient,
} from './fixtures';

const s = paymentApp();

function post(body: Record<string, unknown>, headers: Record<string, string> = {}, caller = s.w.caller) {
  return s.ctx.app.inject({
    method: 'POST',
    url: '/api/v1/checkout/paylink',
    headers: { ...caller.headers, ...headers },
    payload: body,
  });
}

async function countTx(clientId: string) {
  return (
    await s.ctx.db
      .select({ id: transactions.id })
      .from(transactions)
      .where(eq(transactions.clientId, clientId))
  ).length;
}

describe('creation', () => {
  it('201 with the transaction, checkout_url and expires_at', async () => {
    const res = await post(
      paylinkBody(s.w, { amount: '10.5', description: 'Order #42', metadata: { order: 42 } }),
      {
        'x-idempotency-key': newKey(),
      },
    );
    expect(res.statusCode).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({
      amount: '10.50',
      currency: 'EUR',
      status: 'pending',
      provider_status: 'initiated',
      reconciliation_state: 'none',
      user_id: s.w.userId,
      business_customer_id: null,
      project_id: s.w.projectId,
      contract_request_id: null,
      transfer_id: null,
      description: 'Order #42',
      metadata: { order: 42 },
      expires_at: '2026-01-16T10:00:00.000Z',
    });
    expect(t.ref_id).toMatch(/^ref_/);
    expect(t.checkout_url).toMatch(/^http:\/\/localhost:8000\/checkout\/[A-Za-z0-9_-]{20,}$/);
    const page = await s.ctx.app.inject({ url: new URL(t.checkout_url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('a business customer payer', async () => {
    const t = await createPaylink(s.ctx, s.w, {
      user_id: undefined,
      business_customer_id: s.w.businessCustomerId,
    });
    expect(t).toMatchObject({ business_customer_id: s.w.businessCustomerId, user_id: null });
  });

  it('expires_in_seconds sets expires_at', async () => {
    const t = await createPaylink(s.ctx, s.w, { expires_in_seconds: 3600 });
    expect(t.expires_at).toBe('2026-01-15T11:00:00.000Z');
  });

  it('JPY has no minor units; BHD has three', async () => {
    expect((await createPaylink(s.ctx, s.w, { amount: '1500', currency: 'JPY' })).amount).toBe('1500');
    expect((await createPaylink(s.ctx, s.w, { amount: '1.5', currency: 'BHD' })).amount).toBe('1.500');
  });
});

describe('validation (422)', () => {
  const bad: [string, Record<string, unknown>, (string | number)[]][] = [
    ['zero amount', { amount: '0' }, ['body', 'amount']],
    ['negative amount', { amount: '-5.00' }, ['body', 'amount']],
    ['float-ish amount', { amount: '1e3' }, ['body', 'amount']],
    ['too many decimals', { amount: '1.001' }, ['body', 'amount']],
    ['JPY decimals', { amount: '1.5', currency: 'JPY' }, ['body', 'amount']],
    ['unknown currency', { currency: 'XYZ' }, ['body', 'currency']],
    ['lowercase currency', { currency: 'eur' }, ['body', 'currency']],
    [
      'both payers',
      { business_customer_id: '01a2013e-6671-736e-afdb-f79df086ab01' },
      ['body', 'business_customer_id'],
    ],
    ['bad project id', { project_id: 'nope' }, ['body', 'project_id']],
    ['unknown field', { surprise: true }, ['body', 'surprise']],
    ['expiry too short', { expires_in_seconds: 5 }, ['body', 'expires_in_seconds']],
  ];
  for (const [name, extra, loc] of bad) {
    it(name, async () => {
      const res = await post(paylinkBody(s.w, extra), { 'x-idempotency-key': newKey() });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    });
  }

  it('amount as a JSON number is 422 with the message of "12,50" (what to send instead)', async () => {
    const comma = await post({ ...paylinkBody(s.w), amount: '12,50' }, { 'x-idempotency-key': newKey() });
    expect(comma.statusCode).toBe(422);
    const expected = [
      {
        loc: ['body', 'amount'],
        msg: 'Amount must be a decimal string such as "125.50"',
        type: 'value_error',
      },
    ];
    expect(comma.json().detail).toEqual(expected);
    for (const amount of [12.5, 1250, 0]) {
      const res = await post({ ...paylinkBody(s.w), amount }, { 'x-idempotency-key': newKey() });
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual(expected);
    }
  });

  it('no payer is 422', async () => {
    const res = await post(paylinkBody(s.w, { user_id: undefined }), { 'x-idempotency-key': newKey() });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'user_id']);
  });
});

describe('business checks', () => {
  it('missing or empty X-Idempotency-Key is 400', async () => {
    for (const headers of [{}, { 'x-idempotency-key': '' }, { 'x-idempotency-key': '   ' }] as Record<
      string,
      string
    >[]) {
      const res = await post(paylinkBody(s.w), headers);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: M.idempotencyKeyEmpty });
    }
  });

  it('developer role is 403', async () => {
    const dev = await createTestClient(s.ctx, { role: 'developer', clientId: s.w.caller.clientId });
    const res = await post(paylinkBody(s.w), { 'x-idempotency-key': newKey() }, dev);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      detail: M.insufficientPermissions,
      required_permission: expect.any(String),
    });
  });

  it('operations role and API tokens may create', async () => {
    const ops = await createTestClient(s.ctx, { role: 'operations', clientId: s.w.caller.clientId });
    expect((await post(paylinkBody(s.w), { 'x-idempotency-key': newKey() }, ops)).statusCode).toBe(201);
    const api = await createTestClient(s.ctx, {
      role: 'owner',
      apiToken: true,
      clientId: s.w.caller.clientId,
    });
    expect((await post(paylinkBody(s.w), { 'x-idempotency-key': newKey() }, api)).statusCode).toBe(201);
  });

  it('no token is 401', async () => {
    const res = await s.ctx.app.inject({
      method: 'POST',
      url: '/api/v1/checkout/paylink',
      payload: paylinkBody(s.w),
    });
    expect(res.statusCode).toBe(401);
  });

  it('payment links disabled is 403', async () => {
    const o = await createPaymentWorld(s.ctx);
    await setClient(s.ctx, o.caller.clientId, { paymentLinksEnabled: false });
    const res = await post(paylinkBody(o), { 'x-idempotency-key': newKey() }, o.caller);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: M.paymentLinksDisabled });
  });

  it('no callback_url is 400', async () => {
    const o = await createPaymentWorld(s.ctx, { callbackUrl: null });
    const res = await post(paylinkBody(o), { 'x-idempotency-key': newKey() }, o.caller);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: M.callbackUrlNotSet });
  });

  it('unknown user or business customer is 404 with the spec message', async () => {
    const other = await createPaymentWorld(s.ctx);
    for (const extra of [
      { user_id: '01a2013e-0000-7000-8000-000000000000' },
      { user_id: other.userId }, // another client's user
      { user_id: undefined, business_customer_id: other.businessCustomerId },
    ]) {
      const res = await post(paylinkBody(s.w, extra), { 'x-idempotency-key': newKey() });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: M.userNotFoundCreateFirst });
    }
  });

  it('unknown or foreign project is 404', async () => {
    const other = await createPaymentWorld(s.ctx);
    for (const project_id of ['01a2013e-0000-7000-8000-000000000000', other.projectId]) {
      const res = await post(paylinkBody(s.w, { project_id }), { 'x-idempotency-key': newKey() });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: M.projectNotFound });
    }
  });

  it('frozen project is 403', async () => {
    const p = await insertProject(s.ctx, s.w.caller.clientId, s.w.opcoId, true);
    const res = await post(paylinkBody(s.w, { project_id: p }), { 'x-idempotency-key': newKey() });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: M.projectFrozen });
  });

  it('an archived project takes no new link (400) until it is unarchived', async () => {
    const p = await insertProject(s.ctx, s.w.caller.clientId, s.w.opcoId);
    const archive = (verb: string) =>
      s.ctx.app.inject({ method: 'POST', url: `/api/v1/projects/${p}/${verb}`, headers: s.w.caller.headers });
    expect((await archive('archive')).statusCode).toBe(200);
    const key = newKey();
    const res = await post(paylinkBody(s.w, { project_id: p }), { 'x-idempotency-key': key });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: PaymentMessages.projectArchived });
    expect((await archive('unarchive')).statusCode).toBe(200);
    expect((await post(paylinkBody(s.w, { project_id: p }), { 'x-idempotency-key': key })).statusCode).toBe(
      201,
    );
  });

  it('project without an activated opco with a Sub-TPP id is 400', async () => {
    const unbound = await insertProject(s.ctx, s.w.caller.clientId, null);
    const awaiting = await insertProject(
      s.ctx,
      s.w.caller.clientId,
      await insertOpco(s.ctx, s.w.caller.clientId, { status: 'awaiting_approval' }),
    );
    const noSubTpp = await insertProject(
      s.ctx,
      s.w.caller.clientId,
      await insertOpco(s.ctx, s.w.caller.clientId, { subTppId: null }),
    );
    const deactivated = await insertProject(
      s.ctx,
      s.w.caller.clientId,
      await insertOpco(s.ctx, s.w.caller.clientId, { status: 'deactivated' }),
    );
    for (const project_id of [unbound, awaiting, noSubTpp]) {
      const res = await post(paylinkBody(s.w, { project_id }), { 'x-idempotency-key': newKey() });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: M.opcoNoSubTpp });
    }
    // A deactivated opco (by staff, or its Sub-TPP by the payment network) says so.
    const res = await post(paylinkBody(s.w, { project_id: deactivated }), { 'x-idempotency-key': newKey() });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: PaymentMessages.opcoDeactivated });
  });

  it('a failed check does not burn the idempotency key', async () => {
    const key = newKey();
    const frozen = await insertProject(s.ctx, s.w.caller.clientId, s.w.opcoId, true);
    expect(
      (await post(paylinkBody(s.w, { project_id: frozen }), { 'x-idempotency-key': key })).statusCode,
    ).toBe(403);
    expect(
      (await post(paylinkBody(s.w, { project_id: frozen }), { 'x-idempotency-key': key })).statusCode,
    ).toBe(403);
  });
});

describe('idempotency', () => {
  it('same key and payload replays the original with 200', async () => {
    const key = newKey();
    const first = await post(paylinkBody(s.w, { metadata: { a: 1, b: 2 } }), { 'x-idempotency-key': key });
    expect(first.statusCode).toBe(201);
    // property order does not matter
    const second = await post(
      { metadata: { b: 2, a: 1 }, ...paylinkBody(s.w) },
      { 'x-idempotency-key': key },
    );
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
  });

  it('same key with another payload is 409', async () => {
    const key = newKey();
    expect((await post(paylinkBody(s.w), { 'x-idempotency-key': key })).statusCode).toBe(201);
    const res = await post(paylinkBody(s.w, { amount: '99.00' }), { 'x-idempotency-key': key });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ detail: M.idempotencyPayloadMismatch });
  });

  it('keys are per client', async () => {
    const key = newKey();
    const other = await createPaymentWorld(s.ctx);
    expect((await post(paylinkBody(s.w), { 'x-idempotency-key': key })).statusCode).toBe(201);
    expect((await post(paylinkBody(other), { 'x-idempotency-key': key }, other.caller)).statusCode).toBe(201);
  });

  it('a duplicate while the first is still processing is 409', async () => {
    const key = newKey();
    await s.ctx.db.insert(paymentIdempotencyKeys).values({
      clientId: s.w.caller.clientId,
      idempotencyKey: key,
      fingerprint: (await import('../../src/shared/fingerprint')).requestFingerprint({
        ...paylinkBody(s.w),
        expires_in_seconds: 86400,
      }),
      state: 'processing',
      createdAt: s.ctx.clock.now(),
    });
    const res = await post(paylinkBody(s.w), { 'x-idempotency-key': key });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ detail: M.idempotencyInProgress });
    // a claim abandoned by a crashed request is released after the grace period
    s.ctx.clock.advanceSeconds(s.ctx.config.idempotencyStaleSeconds + 1);
    expect((await post(paylinkBody(s.w), { 'x-idempotency-key': key })).statusCode).toBe(201);
  });

  it('a request whose claim was taken over as stale rolls back instead of creating a second payment', async () => {
    const key = newKey();
    const bank = s.ctx.deps.providers.bank;
    const original = bank.createSession.bind(bank);
    let takeover: Promise<{ statusCode: number }> | null = null;
    bank.createSession = async (input) => {
      bank.createSession = original;
      // while the first request is "slow", the claim goes stale and another request takes it over
      s.ctx.clock.advanceSeconds(s.ctx.config.idempotencyStaleSeconds + 1);
      takeover = post(paylinkBody(s.w), { 'x-idempotency-key': key });
      await takeover;
      return original(input);
    };
    const first = await post(paylinkBody(s.w), { 'x-idempotency-key': key });
    expect((await takeover!)?.statusCode).toBe(201);
    expect(first.statusCode).toBe(409);
    const rows = await s.ctx.db
      .select()
      .from(paymentIdempotencyKeys)
      .where(
        and(
          eq(paymentIdempotencyKeys.clientId, s.w.caller.clientId),
          eq(paymentIdempotencyKeys.idempotencyKey, key),
        ),
      );
    expect(rows).toHaveLength(1);
    const replay = await post(paylinkBody(s.w), { 'x-idempotency-key': key });
    expect(replay.statusCode).toBe(200);
    expect(replay.json().transaction_id).toBe(rows[0]!.transactionId);
  });

  it('concurrent burst of the same key: exactly one transaction', async () => {
    const o = await createPaymentWorld(s.ctx);
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => post(paylinkBody(o), { 'x-idempotency-key': key }, o.caller)),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.every((c) => [200, 201, 409].includes(c))).toBe(true);
    expect(await countTx(o.caller.clientId)).toBe(1);
    const created = results.find((r) => r.statusCode === 201)!.json();
    for (const r of results.filter((x) => x.statusCode === 200))
      expect(r.json().transaction_id).toBe(created.transaction_id);
    for (const r of results.filter((x) => x.statusCode === 409))
      expect(r.json()).toEqual({ detail: M.idempotencyInProgress });
  });

  it('concurrent burst across two API nodes over one database: exactly one transaction', async () => {
    const node2 = await createTestApp({ database: s.ctx.deps.database });
    node2.clock.set(s.ctx.clock.now()); // nodes share wall-clock time
    try {
      const o = await createPaymentWorld(s.ctx);
      const key = newKey();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? node2.app : s.ctx.app).inject({
            method: 'POST',
            url: '/api/v1/checkout/paylink',
            headers: { ...o.caller.headers, 'x-idempotency-key': key },
            payload: paylinkBody(o),
          }),
        ),
      );
      const codes = results.map((r) => r.statusCode);
      expect(codes.filter((c) => c === 201)).toHaveLength(1);
      expect(codes.every((c) => [200, 201, 409].includes(c))).toBe(true);
      expect(await countTx(o.caller.clientId)).toBe(1);
    } finally {
      await node2.close();
    }
  });

  it('a payment network failure answers 500, releases the key, and a retry succeeds', async () => {
    const bank = s.ctx.deps.providers.bank;
    const original = bank.createSession.bind(bank);
    bank.createSession = async () => {
      throw new BankProviderError('network down');
    };
    const key = newKey();
    try {
      const res = await post(paylinkBody(s.w), { 'x-idempotency-key': key });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ detail: M.failedToInitiatePayment });
      const claims = await s.ctx.db
        .select()
        .from(paymentIdempotencyKeys)
        .where(
          and(
            eq(paymentIdempotencyKeys.clientId, s.w.caller.clientId),
            eq(paymentIdempotencyKeys.idempotencyKey, key),
          ),
        );
      expect(claims).toHaveLength(0);
    } finally {
      bank.createSession = original;
    }
    expect((await post(paylinkBody(s.w), { 'x-idempotency-key': key })).statusCode).toBe(201);
  });
});
