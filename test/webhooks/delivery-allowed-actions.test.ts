/** A webhook delivery's allowed_actions match what the API accepts, per state and per role. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStatus, webhookDeliveries } from '../../src/db/schema/index';
import { deliveryActions } from '../../src/modules/webhooks/webhooks.actions';
import { newId } from '../../src/shared/ids';
import { expectActionsAgree } from '../helpers/allowed-actions';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { deliveriesOfEvent, emitTestEvent, setMainWebhook } from '../helpers/webhooks';

let ctx: TestContext;
let owner: TestCaller;
beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createTestClient(ctx);
  await setMainWebhook(ctx, owner.clientId, 'https://merchant.example.com/hooks');
});
afterAll(() => ctx?.close());

type Action = (typeof deliveryActions.names)[number];

const api = (method: string, url: string, caller = owner) =>
  ctx.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: caller.headers });

/** A delivery (no dispatcher runs: it stays where the row is put). */
const delivery =
  (status: DeliveryStatus, lockedFor = 0, clientId?: string) =>
  async () => {
    const ev = await emitTestEvent(ctx, clientId ?? owner.clientId, 'payment.status_changed');
    const [d] = await deliveriesOfEvent(ctx, ev!.id);
    const lockedUntil = lockedFor ? new Date(ctx.clock.now().getTime() + lockedFor * 1000) : null;
    await ctx.db
      .update(webhookDeliveries)
      .set({ status, lockedUntil, leaseToken: lockedUntil ? newId() : null })
      .where(eq(webhookDeliveries.id, d!.id));
    return d!.id;
  };

/** A dead-lettered delivery to a destination deleted since (a retry is the 409 "destination was deleted"). */
const toDeletedDestination = async () => {
  const dest = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/destinations',
    headers: owner.headers,
    payload: { url: `https://merchant.example.com/dest-${newId()}` },
  });
  expect(dest.statusCode).toBe(201);
  const destinationId = dest.json().destination_id as string;
  const ev = await emitTestEvent(ctx, owner.clientId, 'payment.status_changed');
  const d = (await deliveriesOfEvent(ctx, ev!.id)).find((x) => x.destinationId === destinationId)!;
  await ctx.db.update(webhookDeliveries).set({ status: 'dead_letter' }).where(eq(webhookDeliveries.id, d.id));
  expect((await api('DELETE', `/webhooks/destinations/${destinationId}`)).statusCode).toBe(204);
  return d.id;
};

const STATES: Record<string, { expected: Action[]; make: () => Promise<string> }> = {
  pending: { expected: ['retry'], make: delivery('pending') },
  retrying: { expected: ['retry'], make: delivery('retrying') },
  succeeded: { expected: ['retry'], make: delivery('succeeded') },
  dead_letter: { expected: ['retry'], make: delivery('dead_letter') },
  'retrying, an attempt in flight': { expected: [], make: delivery('retrying', 30) },
  'dead_letter, its destination deleted since': { expected: [], make: toDeletedDestination },
};

describe('webhook delivery allowed_actions', () => {
  for (const [state, { expected, make }] of Object.entries(STATES))
    it(`${state}: ${expected.join(', ') || 'nothing'}`, () =>
      expectActionsAgree({
        names: deliveryActions.names,
        expected,
        make,
        actionsOf: async (id) => (await api('GET', `/webhooks/deliveries/${id}`)).json().allowed_actions,
        perform: (_action, id) => api('POST', `/webhooks/deliveries/${id}/retry`),
      }));

  it('the retry answer carries them; a role without webhooks.write sees none; the list carries them per row', async () => {
    const id = await delivery('dead_letter')();
    const retried = await api('POST', `/webhooks/deliveries/${id}/retry`);
    expect(retried.json()).toMatchObject({ status: 'pending', allowed_actions: ['retry'] });
    const ops = await createTestClient(ctx, { role: 'operations', clientId: owner.clientId });
    expect((await api('GET', `/webhooks/deliveries/${id}`, ops)).json().allowed_actions).toEqual([]);
    expect((await api('POST', `/webhooks/deliveries/${id}/retry`, ops)).statusCode).toBe(403);
    const other = await createTestClient(ctx);
    await setMainWebhook(ctx, other.clientId, 'https://merchant.example.com/other');
    for (const status of ['pending', 'retrying', 'succeeded', 'dead_letter'] as const)
      await delivery(status, 0, other.clientId)();
    const busy = await delivery('pending', 30, other.clientId)();
    const list = (await api('GET', '/webhooks/deliveries', other)).json().deliveries as {
      delivery_id: string;
      allowed_actions: string[];
    }[];
    expect(list).toHaveLength(5);
    for (const d of list) expect(d.allowed_actions).toEqual(d.delivery_id === busy ? [] : ['retry']);
  });
});
