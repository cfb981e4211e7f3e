/**
 * A transaction's allowed_actions match what the API accepts: in each state, every listed action
 * succeeds and every action not listed is refused (or, for the sandbox simulator, changes nothing).
 */
import { describe, expect, it } from 'vitest';
import { transactionActions } from '../../src/modules/payments/payments.actions';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { paymentApp } from '../helpers/suites';
import { createPaylink, pickBank, simulate } from './fixtures';

const suite = paymentApp();

type Action = (typeof transactionActions.names)[number];

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  'pending, no bank picked': {
    expected: ['cancel', 'simulate'],
    make: async () => (await createPaylink(suite.ctx, suite.w)).transaction_id,
  },
  'processing, at the bank': {
    expected: ['cancel', 'refresh_status', 'simulate'],
    make: async () => {
      const t = await createPaylink(suite.ctx, suite.w);
      await pickBank(suite.ctx, t.checkout_url);
      return t.transaction_id;
    },
  },
  canceled: {
    expected: [],
    make: async () => {
      const t = await createPaylink(suite.ctx, suite.w);
      await simulate(suite.ctx, suite.w, t.transaction_id, 'canceled');
      return t.transaction_id;
    },
  },
  success: {
    expected: ['refund'],
    make: async () => {
      const t = await createPaylink(suite.ctx, suite.w);
      await pickBank(suite.ctx, t.checkout_url);
      await simulate(suite.ctx, suite.w, t.transaction_id, 'completed');
      return t.transaction_id;
    },
  },
  'success, fully refunded': {
    expected: [],
    make: async () => {
      const id = await STATES.success!.make();
      expect((await perform('refund', id, suite.w.caller)).statusCode).toBe(201);
      return id;
    },
  },
};

let refundKey = 0;
function perform(action: Action, id: string, caller: TestCaller) {
  const url = {
    cancel: `/api/v1/checkout/intent/${id}/cancel`,
    refresh_status: `/api/v1/transactions/${id}/refresh-status`,
    refund: `/api/v1/transactions/${id}/refunds`,
    simulate: `/api/v1/sandbox/transactions/${id}/simulate`,
  }[action];
  const payload = action === 'simulate' ? { outcome: 'success' } : action === 'refund' ? {} : undefined;
  const headers =
    action === 'refund' ? { ...caller.headers, 'x-idempotency-key': `aa-${++refundKey}` } : caller.headers;
  return suite.ctx.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
}

const read = async (id: string, caller = suite.w.caller) =>
  (await suite.ctx.app.inject({ url: `/api/v1/transactions/${id}`, headers: caller.headers })).json();

describe('transaction allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES)) {
    it(`${state}: lists ${expected.join(', ') || 'nothing'}, and the API agrees`, async () => {
      const listed = (await read(await make())).allowed_actions;
      expect(listed).toEqual(expected);
      for (const action of transactionActions.names) {
        const id = await make();
        const before = await read(id);
        const r = await perform(action, id, suite.w.caller);
        if (expected.includes(action))
          expect(r.statusCode, `${action}: ${r.body}`).toBe(action === 'refund' ? 201 : 200);
        else if (action === 'simulate') expect((await read(id)).status).toBe(before.status);
        else expect([400, 409], `${action}: ${r.body}`).toContain(r.statusCode);
      }
    });
  }

  it("leaves out what the token's permissions do not allow (a developer cannot cancel)", async () => {
    const dev = await createTestClient(suite.ctx, { role: 'developer', clientId: suite.w.caller.clientId });
    const id = await STATES['pending, no bank picked']!.make();
    expect((await read(id, dev)).allowed_actions).toEqual(['simulate']);
    expect((await perform('cancel', id, dev)).statusCode).toBe(403);
  });

  it('every row of a list carries its own actions', async () => {
    const r = await suite.ctx.app.inject({
      url: '/api/v1/transactions?page_size=50',
      headers: suite.w.caller.headers,
    });
    const rows = r.json().transactions as { status: string; allowed_actions: string[] }[];
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows)
      if (row.status === 'canceled') expect(row.allowed_actions).toEqual([]);
      else if (row.status === 'success') expect(row.allowed_actions).not.toContain('cancel');
      else expect(row.allowed_actions).toContain('cancel');
  });
});
