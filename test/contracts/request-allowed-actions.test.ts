/** A contract request's allowed_actions match what the API accepts, per state and per role. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractParticipants, contractRequests } from '../../src/db/schema/index';
import { requestActions } from '../../src/modules/contracts/requests/requests.actions';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { byRole, call, createTemplate, getReq, participants, type Req, send, simulate } from './fixtures';

let ctx: TestContext;
let owner: TestCaller;
let templateId: string;
let n = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  templateId = (await createTemplate(ctx, owner)).template_id;
});
afterAll(() => ctx?.close());

type Action = (typeof requestActions.names)[number];

const sent = async (extra: Record<string, unknown> = {}) =>
  (await send(ctx, owner, { template_id: templateId, participants: participants(`aa${++n}`), ...extra }))
    .contract_request_id;

const then = (step: (r: Req) => Promise<unknown>) => async () => {
  const id = await sent();
  await step(await getReq(ctx, owner, id));
  return id;
};
const sim = (action: string, role?: string) =>
  then(async (r) => {
    const res = await simulate(
      ctx,
      owner,
      r.contract_request_id,
      action,
      role && byRole(r, role).participant_id,
    );
    expect(res.statusCode, res.body).toBe(200);
  });

/** Pending (the provider has not accepted the envelope yet): not reachable through the sandbox provider. */
const pending = then(async (r) => {
  await ctx.db
    .update(contractRequests)
    .set({ status: 'pending' })
    .where(eq(contractRequests.id, r.contract_request_id));
  await ctx.db
    .update(contractParticipants)
    .set({ status: 'waiting' })
    .where(eq(contractParticipants.requestId, r.contract_request_id));
});

const STATES: Record<string, { expected: Action[]; make: () => Promise<string>; remindNoop?: true }> = {
  sent: { expected: ['void', 'remind', 'simulate'], make: () => sent() },
  in_progress: { expected: ['void', 'remind', 'simulate'], make: sim('sign', 'client') },
  'sent, delivery none': { expected: ['void', 'simulate'], make: () => sent({ delivery: 'none' }) },
  pending: { expected: ['void'], make: pending, remindNoop: true },
  completed: {
    expected: [],
    make: then(async (r) => {
      for (const role of ['client', 'company'])
        await simulate(ctx, owner, r.contract_request_id, 'sign', byRole(r, role).participant_id);
    }),
  },
  declined: { expected: [], make: sim('decline', 'client') },
  expired: { expected: [], make: sim('expire') },
  voided: {
    expected: [],
    make: then((r) =>
      call(ctx, owner)('POST', `/contracts/requests/${r.contract_request_id}/void`, { reason: 'x' }),
    ),
  },
  failed: { expected: [], make: async () => sent({ title: 'FAIL on purpose' }) },
};

async function perform(action: Action, id: string) {
  const api = call(ctx, owner);
  if (action === 'void') return api('POST', `/contracts/requests/${id}/void`, { reason: 'Not needed' });
  if (action === 'remind') return api('POST', `/contracts/requests/${id}/remind`, {});
  const r = await getReq(ctx, owner, id);
  const p = r.participants.find((x) => x.status === 'sent' || x.status === 'viewed') ?? r.participants[0]!;
  return simulate(ctx, owner, id, 'sign', p.participant_id);
}

const actionsOf = async (id: string) =>
  (await call(ctx, owner)('GET', `/contracts/requests/${id}`)).json().allowed_actions;

describe('contract request allowed_actions', () => {
  for (const [state, { expected, make, remindNoop }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: requestActions.names,
        expected,
        make,
        actionsOf,
        perform,
        // A remind with nobody's turn live answers 200 and reminds no one.
        ...(remindNoop && {
          snapshot: (id: string) => getReq(ctx, owner, id),
          notRefused: {
            actions: ['remind'] as Action[],
            unchanged: async (id: string, before: unknown) =>
              expect(await getReq(ctx, owner, id)).toEqual(before),
          },
        }),
      }));

  it('a role without contracts.send sees only the simulator; the list and the action answers carry them', async () => {
    const id = await sent();
    const dev = await createTestClient(ctx, { role: 'developer', clientId: owner.clientId });
    expect((await call(ctx, dev)('GET', `/contracts/requests/${id}`)).json().allowed_actions).toEqual([
      'simulate',
    ]);
    expect((await call(ctx, dev)('POST', `/contracts/requests/${id}/void`, { reason: 'x' })).statusCode).toBe(
      403,
    );
    const readOnly = await createTestClient(ctx, {
      clientId: owner.clientId,
      apiToken: true,
      permissions: ['contracts.read'],
    });
    expect((await call(ctx, readOnly)('GET', `/contracts/requests/${id}`)).json().allowed_actions).toEqual(
      [],
    );
    const voided = await call(ctx, owner)('POST', `/contracts/requests/${id}/void`, { reason: 'x' });
    expect(voided.json().allowed_actions).toEqual([]);
    const list = (await call(ctx, owner)('GET', '/contracts/requests?page_size=100')).json()
      .contract_requests as {
      status: string;
      delivery: string;
      allowed_actions: string[];
    }[];
    expect(list.length).toBeGreaterThan(1);
    for (const r of list)
      expect(r.allowed_actions).toEqual(
        requestActions.of(r as Parameters<typeof requestActions.of>[0], {
          permissions: new Set(['contracts.send', 'sandbox.simulate']),
          sandbox: true,
        }),
      );
  });
});
