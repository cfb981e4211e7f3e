/** A monitored transaction's allowed_actions match what the API accepts, per decision and per role. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitoringActions } from '../../src/modules/monitoring/monitoring.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, type Json, putPolicy, rule, submit } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;

const RULES = [
  rule('cash', 'payment_method_in', { methods: ['cash'] }),
  rule(
    'sof',
    'payment_method_in',
    { methods: ['crypto'] },
    { action: 'require_user', remediation_type: 'source_of_funds' },
  ),
];

beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  owner = await createTestClient(ctx);
  await putPolicy(ctx, owner, { rules: RULES });
});
afterAll(() => ctx?.close());

type Action = (typeof monitoringActions.names)[number];

const review = (id: string, body: Json) =>
  call('POST', `/monitoring/transactions/${id}/review`, owner, { note: 'Checked', ...body });
const simulate = (id: string, action = 'remediation_submitted') =>
  call('POST', `/sandbox/monitoring/transactions/${id}/simulate`, owner, { action });

async function submitted(paymentMethod: string, then?: (id: string) => ReturnType<typeof review>) {
  const id = (await submit(ctx, owner, { payment_method: paymentMethod })).monitored_transaction_id;
  if (then) expect((await then(id)).statusCode).toBe(200);
  return id;
}

const REVIEWABLE: Action[] = ['approve', 'decline', 'request_remediation'];
const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  IN_REVIEW: { expected: REVIEWABLE, make: () => submitted('cash') },
  'AWAITING_USER (remediation pending)': {
    expected: ['approve', 'decline', 'simulate_remediation'],
    make: () => submitted('crypto'),
  },
  'IN_REVIEW (remediation submitted)': { expected: REVIEWABLE, make: () => submitted('crypto', simulate) },
  APPROVED: { expected: [], make: () => submitted('bank_transfer') },
  DECLINED: {
    expected: [],
    make: () => submitted('cash', (id) => review(id, { decision: 'DECLINED' })),
  },
  'DECLINED (remediation expired)': {
    expected: [],
    make: async () => {
      await putPolicy(ctx, owner, { rules: RULES, on_remediation_expiry: 'DECLINED' });
      return submitted('crypto', (id) => simulate(id, 'remediation_expired'));
    },
  },
};

const perform = (action: Action, id: string) =>
  ({
    approve: () => review(id, { decision: 'APPROVED' }),
    decline: () => review(id, { decision: 'DECLINED' }),
    request_remediation: () => review(id, { decision: 'AWAITING_USER', remediation_type: 'source_of_funds' }),
    simulate_remediation: () => simulate(id),
  })[action]();

const actionsOf = async (id: string, caller = owner) =>
  (await call('GET', `/monitoring/transactions/${id}`, caller)).json().allowed_actions as string[];

describe('monitored transaction allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({ names: monitoringActions.names, expected, make, actionsOf, perform }));

  it('a role without monitoring.review sees none; the list carries them per row', async () => {
    const id = await submitted('cash');
    const reader = await createTestClient(ctx, {
      clientId: owner.clientId,
      apiToken: true,
      permissions: ['monitoring.read'],
    });
    expect(await actionsOf(id, reader)).toEqual([]);
    expect((await call('POST', `/monitoring/transactions/${id}/review`, reader, {})).statusCode).toBe(403);
    const list = (await call('GET', '/monitoring/transactions?page_size=200', owner)).json()
      .monitored_transactions as {
      decision: string;
      remediation_status: string | null;
      allowed_actions: string[];
    }[];
    expect(list.length).toBeGreaterThan(1);
    for (const m of list)
      expect(m.allowed_actions).toEqual(
        m.decision === 'IN_REVIEW'
          ? REVIEWABLE
          : m.decision === 'AWAITING_USER'
            ? ['approve', 'decline', 'simulate_remediation']
            : [],
      );
  });

  it('the review and simulate answers carry them; production offers no simulation', async () => {
    const id = await submitted('crypto');
    const reviewed = await review(id, { decision: 'DECLINED' });
    expect(reviewed.json().allowed_actions).toEqual([]);
    const again = await submitted('crypto');
    expect((await simulate(again)).json().allowed_actions).toEqual(REVIEWABLE);
    const row = { decision: 'AWAITING_USER' as const, remediation_status: 'pending' };
    const production = { permissions: new Set(['monitoring.review', 'sandbox.simulate']), sandbox: false };
    expect(monitoringActions.of(row, production)).toEqual(['approve', 'decline']);
  });
});
