/** A recurring payment's allowed_actions match what the API accepts, per status and per role. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recurringActions } from '../../src/modules/recurring/recurring.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import { api, createActive, createRecurring, simulate } from './fixtures';

let ctx: TestContext;
let w: PaymentWorld;
beforeAll(async () => {
  ctx = await createTestApp();
  w = await createPaymentWorld(ctx);
});
afterAll(() => ctx?.close());

type Action = (typeof recurringActions.names)[number];

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  pending_authorization: {
    expected: ['edit', 'cancel'],
    make: async () => (await createRecurring(ctx, w)).definition_id,
  },
  active: {
    expected: ['edit', 'pause', 'cancel'],
    make: async () => (await createActive(ctx, w)).definition_id,
  },
  paused: {
    expected: ['edit', 'resume', 'cancel'],
    make: async () => {
      const id = (await createActive(ctx, w)).definition_id;
      expect((await api(ctx, w, 'POST', `/recurring-payments/${id}/pause`, {})).statusCode).toBe(200);
      return id;
    },
  },
  revoked: {
    expected: [],
    make: async () =>
      (await simulate(ctx, w, (await createActive(ctx, w)).definition_id, 'revoke')).definition_id,
  },
  authorization_failed: {
    expected: [],
    make: async () =>
      (await simulate(ctx, w, (await createRecurring(ctx, w)).definition_id, 'reject_authorization'))
        .definition_id,
  },
};

const perform = (action: Action, id: string) =>
  action === 'edit'
    ? api(ctx, w, 'PATCH', `/recurring-payments/${id}`, { description: 'Changed' })
    : api(ctx, w, 'POST', `/recurring-payments/${id}/${action}`, {});

describe('recurring payment allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: recurringActions.names,
        expected,
        make,
        actionsOf: async (id) =>
          (await api(ctx, w, 'GET', `/recurring-payments/${id}`)).json().allowed_actions,
        perform,
      }));

  it('a role without recurring.write sees none; list rows carry theirs', async () => {
    const id = (await createActive(ctx, w)).definition_id;
    const dev = await createTestClient(ctx, { role: 'developer', clientId: w.caller.clientId });
    const r = await ctx.app.inject({ url: `/api/v1/recurring-payments/${id}`, headers: dev.headers });
    expect(r.json().allowed_actions).toEqual([]);
    const list = (await api(ctx, w, 'GET', '/recurring-payments?page_size=100')).json()
      .recurring_payments as {
      definition_id: string;
      allowed_actions: string[];
    }[];
    expect(list.find((d) => d.definition_id === id)?.allowed_actions).toEqual(['edit', 'pause', 'cancel']);
  });
});
