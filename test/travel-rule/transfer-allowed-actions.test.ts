/** A travel-rule transfer's allowed_actions match what the API accepts, per state and per role. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TransferStatus, travelRuleTransfers } from '../../src/db/schema/index';
import { transferActions } from '../../src/modules/travel-rule/allowed-actions.view';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { api, BENEFICIARY, evm, ORIGINATOR, SANDBOX_VASP_IDS } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;
beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  owner = await createTestClient(ctx);
});
afterAll(() => ctx?.close());

type Action = (typeof transferActions.names)[number];

/** A transfer row in `status` (the network's answers are not needed to act on it). */
async function insert(status: TransferStatus, direction: 'outbound' | 'inbound' = 'outbound') {
  const now = ctx.clock.now();
  const [t] = await ctx.db
    .insert(travelRuleTransfers)
    .values({
      clientId: owner.clientId,
      direction,
      status,
      asset: 'ETH',
      chain: 'ethereum',
      amount: '1.5',
      fiatAmount: '2500.00',
      fiatCurrency: 'EUR',
      thresholdApplies: status !== 'not_required',
      originator: ORIGINATOR,
      beneficiary: BENEFICIARY,
      originatorVasp: { name: 'Acme VASP', country: 'DE' },
      beneficiaryVasp:
        direction === 'outbound'
          ? { vasp_id: SANDBOX_VASP_IDS.silent, name: 'Sandbox VASP Silent', country: 'DE' }
          : null,
      counterpartyAddress: evm('abee'),
      clientReference: `aa-${randomUUID()}`,
      networkRef: direction === 'inbound' ? randomUUID() : null,
      repairFields: status === 'needs_repair' ? ['beneficiary.last_name'] : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return t!.id;
}

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  not_required: { expected: [], make: () => insert('not_required') },
  pending: { expected: ['cancel'], make: () => insert('pending') },
  awaiting_counterparty: { expected: ['cancel', 'simulate'], make: () => insert('awaiting_counterparty') },
  awaiting_ownership: { expected: ['cancel'], make: () => insert('awaiting_ownership') },
  counterparty_not_reachable: {
    expected: ['proceed', 'cancel'],
    make: () => insert('counterparty_not_reachable'),
  },
  needs_repair: { expected: ['repair', 'cancel', 'simulate'], make: () => insert('needs_repair') },
  'awaiting_review (inbound)': {
    expected: ['accept', 'reject', 'cancel', 'simulate'],
    make: () => insert('awaiting_review', 'inbound'),
  },
  accepted: { expected: ['tx_hash', 'cancel'], make: () => insert('accepted') },
  completed: { expected: [], make: () => insert('completed') },
  rejected: { expected: [], make: () => insert('rejected') },
  canceled: { expected: [], make: () => insert('canceled') },
  expired: { expected: [], make: () => insert('expired') },
};

const url = (id: string) => `/travel-rule/transfers/${id}`;
const perform = (action: Action, id: string, who = owner) =>
  ({
    repair: () =>
      call('PATCH', url(id), who.headers, { beneficiary: { ...BENEFICIARY, last_name: 'Fixed' } }),
    tx_hash: () => call('POST', `${url(id)}/tx-hash`, who.headers, { tx_hash: `0x${'ab'.repeat(32)}` }),
    proceed: () => call('POST', `${url(id)}/proceed`, who.headers, { justification: 'Known counterparty' }),
    accept: () => call('POST', `${url(id)}/accept`, who.headers),
    reject: () => call('POST', `${url(id)}/reject`, who.headers, { reason: 'Unknown originator' }),
    cancel: () => call('POST', `${url(id)}/cancel`, who.headers),
    simulate: () =>
      call('POST', `/sandbox/travel-rule/transfers/${id}/simulate`, who.headers, { action: 'expire' }),
  })[action]();

describe('travel-rule transfer allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: transferActions.names,
        expected,
        make,
        actionsOf: async (id) => (await call('GET', url(id), owner.headers)).json().allowed_actions,
        perform,
      }));

  it('outbound awaiting_review offers no accept or reject (the endpoints refuse it)', async () => {
    const id = await insert('awaiting_review');
    expect((await call('GET', url(id), owner.headers)).json().allowed_actions).toEqual([
      'cancel',
      'simulate',
    ]);
    expect((await perform('accept', id)).statusCode).toBe(400);
  });

  it('a reader without travel_rule.write sees none; the list carries them per row', async () => {
    const id = await insert('accepted');
    const reader = await createTestClient(ctx, {
      clientId: owner.clientId,
      apiToken: true,
      permissions: ['travel_rule.read'],
    });
    expect((await call('GET', url(id), reader.headers)).json().allowed_actions).toEqual([]);
    expect((await perform('tx_hash', id, reader)).statusCode).toBe(403);
    const byStatus = new Map(
      Object.entries(STATES).map(([state, s]) => [state.split(' ')[0], s.expected] as const),
    );
    const list = (await call('GET', '/travel-rule/transfers?page_size=200', owner.headers)).json()
      .transfers as { transfer_id: string; status: string; direction: string; allowed_actions: string[] }[];
    expect(list.length).toBeGreaterThan(20);
    for (const t of list) {
      const one = (await call('GET', url(t.transfer_id), owner.headers)).json();
      expect(t.allowed_actions, `${t.status} ${t.direction}`).toEqual(one.allowed_actions);
      if (t.direction === 'outbound' && byStatus.has(t.status) && t.status !== 'awaiting_review')
        expect(t.allowed_actions).toEqual(byStatus.get(t.status));
    }
  });
});
