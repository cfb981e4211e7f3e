/**
 * A counterparty's answer that comes early is not lost: one carried in the reply to our delivery
 * (TRP may resolve an inquiry at once) is applied with the delivery's move; one arriving on the
 * notification route while our delivery is still in flight (the transfer `pending`) is kept in the
 * job `travel_rule.apply_answer` and applied once the delivery is committed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTravelRuleNotification } from '../../src/modules/travel-rule/network.inbound';
import type { TransferMessage, TravelRuleNotification } from '../../src/providers/travel-rule/port';
import { createTestApp, type TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { api, evm, transferBody, travelRuleClient } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp();
  call = api(ctx);
  owner = await travelRuleClient(ctx);
}, 120_000);
afterAll(() => ctx?.close());

const accepted = (transferId: string, address: string): TravelRuleNotification => ({
  type: 'transfer.accepted',
  eventId: crypto.randomUUID(),
  reference: transferId,
  revision: 1,
  reason: null,
  repairFields: null,
  counterpartyCallback: 'https://peer.example/confirm/1',
  approvedAddress: address,
});

/** Runs `fn` with the network's `send` replaced by `send`. */
async function withSend<T>(
  send: (msg: TransferMessage) => Promise<TravelRuleNotification | undefined>,
  fn: () => Promise<T>,
) {
  const net = ctx.deps.providers.travelRule;
  const original = net.send;
  net.send = send;
  try {
    return await fn();
  } finally {
    net.send = original;
  }
}

const status = async (id: string) =>
  (await call('GET', `/travel-rule/transfers/${id}`, owner.headers)).json();

describe('refused at creation', () => {
  it('what the network cannot send whatever the counterparty is a 400 at POST, and nothing is stored', async () => {
    const net = ctx.deps.providers.travelRule;
    const problem = 'The travel-rule settings need originator_vasp.lei for the TRP network';
    net.checkOutbound = (msg) => (msg.originatorVasp.lei === 'none' ? null : problem);
    try {
      const body = transferBody(evm('abcd'));
      const res = await call('POST', '/travel-rule/transfers', owner.headers, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ detail: problem });
      const list = await call('GET', `/travel-rule/transfers?q=${body.client_reference}`, owner.headers);
      expect(list.statusCode).toBe(200);
      expect(list.json().transfers).toEqual([]);
      // Below the threshold nothing goes to the network: not checked.
      const below = await call('POST', '/travel-rule/transfers', owner.headers, {
        ...transferBody(evm('abcd')),
        fiat_value: { amount: '10.00', currency: 'EUR' },
      });
      expect(below.statusCode).toBe(201);
    } finally {
      delete net.checkOutbound;
    }
  });
});

describe('early answers', () => {
  it('an approval in the delivery reply is applied with the move', async () => {
    const address = evm('abcd');
    const created = await withSend(
      async (msg) => accepted(msg.transferId, address),
      () => call('POST', '/travel-rule/transfers', owner.headers, transferBody(address)),
    );
    expect(created.statusCode).toBe(201);
    expect(await status(created.json().transfer_id)).toMatchObject({
      status: 'accepted',
      status_reason: null,
    });
  });

  it('an answer on the route while the delivery is in flight is kept and applied after it', async () => {
    const address = evm('abcd');
    let during: boolean | undefined;
    const created = await withSend(
      async (msg) => {
        during = await applyTravelRuleNotification(ctx.deps, accepted(msg.transferId, address));
        return undefined;
      },
      () => call('POST', '/travel-rule/transfers', owner.headers, transferBody(address)),
    );
    expect(during).toBe(true);
    const id = created.json().transfer_id;
    expect((await status(id)).status).toBe('awaiting_counterparty');
    ctx.clock.advanceSeconds(3);
    await runJobs(ctx);
    expect((await status(id)).status).toBe('accepted');
  });
});
