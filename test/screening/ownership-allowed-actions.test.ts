/** A wallet ownership request's allowed_actions match what the API accepts, per state and per role. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownershipActions } from '../../src/modules/screening/ownership.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { createKycWorld } from '../kyc/fixtures';
import { api, evm } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;
let userId: string;
beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  const world = await createKycWorld(ctx);
  owner = world.caller;
  userId = world.userId;
});
afterAll(() => ctx?.close());

type Action = (typeof ownershipActions.names)[number];

const url = (id: string) => `/screening/wallet-ownership/requests/${id}`;
const ok = <R extends { statusCode: number; body: string }>(r: R) => {
  expect(r.statusCode, r.body).toBeLessThan(300);
  return r;
};
const SATOSHI = { method: 'satoshi_test' };

async function pending() {
  const r = await ok(
    await call('POST', '/screening/wallet-ownership/requests', owner.headers, {
      chain: 'ethereum',
      address: evm('0a0a'),
      user_id: userId,
      methods: ['satoshi_test', 'self_declaration'],
    }),
  );
  return r.json().request_id as string;
}
const after = (step: (id: string) => Promise<unknown>) => async () => {
  const id = await pending();
  await step(id);
  return id;
};
const post = async (id: string, action: string, body?: object) =>
  ok(await call('POST', `${url(id)}/${action}`, owner.headers, body));
const simulate = async (id: string, action: string) =>
  ok(
    await call('POST', `/sandbox/screening/wallet-ownership/requests/${id}/simulate`, owner.headers, {
      action,
    }),
  );

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  pending: { expected: ['submit_proof', 'cancel', 'simulate'], make: pending },
  verifying: { expected: ['cancel', 'simulate'], make: after((id) => post(id, 'proof', SATOSHI)) },
  verified: {
    expected: [],
    make: after((id) => post(id, 'proof', { method: 'self_declaration', declarant_name: 'Jane Roe' })),
  },
  failed: {
    expected: [],
    make: after(async (id) => {
      await post(id, 'proof', SATOSHI);
      await simulate(id, 'deposit_wrong_amount');
    }),
  },
  canceled: { expected: [], make: after((id) => post(id, 'cancel')) },
  expired: { expected: [], make: after((id) => simulate(id, 'expire')) },
};

const perform = (action: Action, id: string, who = owner) =>
  ({
    submit_proof: () => call('POST', `${url(id)}/proof`, who.headers, SATOSHI),
    cancel: () => call('POST', `${url(id)}/cancel`, who.headers),
    simulate: () =>
      call('POST', `/sandbox/screening/wallet-ownership/requests/${id}/simulate`, who.headers, {
        action: 'expire',
      }),
  })[action]();

describe('wallet ownership request allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: ownershipActions.names,
        expected,
        make,
        actionsOf: async (id) => (await call('GET', url(id), owner.headers)).json().allowed_actions,
        perform,
      }));

  it('a reader without screening.write sees none; the list carries them per row', async () => {
    const id = await pending();
    const reader = await createTestClient(ctx, {
      clientId: owner.clientId,
      apiToken: true,
      permissions: ['screening.read'],
    });
    expect((await call('GET', url(id), reader.headers)).json().allowed_actions).toEqual([]);
    expect((await perform('cancel', id, reader)).statusCode).toBe(403);
    const list = (
      await call('GET', '/screening/wallet-ownership/requests?page_size=100', owner.headers)
    ).json().ownership_requests as { status: keyof typeof STATES; allowed_actions: string[] }[];
    expect(list.length).toBeGreaterThan(10);
    for (const r of list) expect(r.allowed_actions, r.status).toEqual(STATES[r.status]!.expected);
  });
});
