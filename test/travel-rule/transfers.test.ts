/**
 * Travel rule: settings, every sandbox VASP, every row of the transfer table, the counters envelope
 * and `q`, 422s with loc, cross-client 404s, and travel_rule.transfer.status_changed at a receiver.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client';
import { travelRuleTransfers, walletOwnershipRequests } from '../../src/db/schema/index';
import { runDueScreeningTimers } from '../../src/modules/screening/screening.jobs';
import { signEip191 } from '../../src/modules/screening/signatures.policy';
import { transferExpiryTimer } from '../../src/modules/travel-rule/expiry.service';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook } from '../helpers/webhooks';
import { createKycWorld } from '../kyc/fixtures';
import { api, evm, runDueTimers, SANDBOX_VASP_IDS, transferBody } from './fixtures';

type Json = Record<string, unknown>;
// A throwaway test key found for its address suffix 1111 (the sandbox's unhosted wallet); holds nothing.
const UNHOSTED_KEY = '11000000000000000000000000000000000000000000000000000000000031fa';
const UNHOSTED_ADDR = '0x30e594abf916fa4a34bd1bb49b6fa9126f731111';
let ctx: TestContext;
let call: ReturnType<typeof api>;
let caller: TestCaller;
let other: TestCaller;
let userId: string;
let rx: Receiver;
let dispatcher: DeliveryDispatcher;

beforeAll(async () => {
  rx = await startReceiver();
  ctx = await createTestApp({
    env: { SVC_SANDBOX_TRAVEL_RULE_DELAY_SECONDS: '2', SVC_SCREENING_SYNC_TIMEOUT_MS: '60000' },
  });
  dispatcher = createDeliveryDispatcher(ctx.deps);
  call = api(ctx);
  const world = await createKycWorld(ctx);
  caller = world.caller;
  userId = world.userId;
  other = await createTestClient(ctx);
  await setMainWebhook(ctx, caller.clientId, `${rx.url}/hooks`);
}, 120_000);
afterAll(async () => {
  await dispatcher?.close();
  await ctx?.close();
  await rx?.close();
});

const create = (body: Json, who: TestCaller = caller) =>
  call('POST', '/travel-rule/transfers', who.headers, body);
const get = async (id: string) => (await call('GET', `/travel-rule/transfers/${id}`, caller.headers)).json();
const post = (id: string, action: string, body?: Json) =>
  call('POST', `/travel-rule/transfers/${id}/${action}`, caller.headers, body);
const simulate = (id: string, body: Json) =>
  call('POST', `/sandbox/travel-rule/transfers/${id}/simulate`, caller.headers, body);
/** Lets the sandbox VASPs answer (their delay passes) and the worker deliver. */
async function answer() {
  ctx.clock.advanceSeconds(3);
  await runDueTimers(ctx);
}
/** Puts the transfer's answer window behind the clock (tokens would not survive a 48 h clock jump). */
async function pastDeadline(...ids: string[]) {
  for (const id of ids)
    await ctx.db
      .update(travelRuleTransfers)
      .set({ expiresAt: new Date(ctx.clock.now().getTime() - 1000) })
      .where(eq(travelRuleTransfers.id, id));
}
async function hookEvents(id: string) {
  await dispatcher.drain();
  return rx
    .on('/hooks')
    .map((r) => JSON.parse(r.rawBody) as { type: string; data: Json })
    .filter((e) => e.type === 'travel_rule.transfer.status_changed' && e.data.transfer_id === id)
    .map((e) => e.data);
}

describe('settings', () => {
  it('defaults, then PUT; POST without an originator VASP is 400', async () => {
    const s = await call('GET', '/travel-rule/settings', caller.headers);
    expect(s.json()).toMatchObject({
      threshold: { amount: '1000.00', currency: 'EUR' },
      originator_vasp: null,
      screen_counterparty_wallet: true,
    });
    const missing = await create(transferBody(evm('abcd')));
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      detail: 'Travel rule settings are incomplete: originator VASP identity is missing',
    });
    const put = await call('PUT', '/travel-rule/settings', caller.headers, {
      originator_vasp: { name: 'Acme VASP', country: 'DE' },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      threshold: { amount: '1000.00', currency: 'EUR' },
      originator_vasp: { name: 'Acme VASP', lei: null, country: 'DE' },
    });
  });
});

describe('the five sandbox VASPs and discovery', () => {
  it('lists the directory with q', async () => {
    const all = (await call('GET', '/travel-rule/vasps', caller.headers)).json();
    expect(all.vasps.map((v: Json) => v.name)).toEqual([
      'Sandbox VASP Accept',
      'Sandbox VASP Repair',
      'Sandbox VASP Reject',
      'Sandbox VASP Silent',
      'Sandbox VASP Offline',
    ]);
    expect(all.pagination.total).toBe(5);
    const q = (await call('GET', '/travel-rule/vasps?q=offline', caller.headers)).json();
    expect(q.vasps).toEqual([
      expect.objectContaining({ vasp_id: SANDBOX_VASP_IDS.offline, reachable: false }),
    ]);
  });

  it('Accept (by address): awaiting_counterparty, accepted after the delay, then tx hash -> completed', async () => {
    const res = await create(transferBody(evm('abcd')));
    expect(res.statusCode).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({
      direction: 'outbound',
      status: 'awaiting_counterparty',
      threshold_applies: true,
      beneficiary_vasp: { vasp_id: SANDBOX_VASP_IDS.accept, name: 'Sandbox VASP Accept' },
      counterparty_wallet: { hosted: true, risk_level: 'low' },
    });
    expect(t.counterparty_wallet.screening_id).toBeTruthy();
    expect(t.sanctions_matches).toEqual([]); // both parties screened, no hit
    expect(t.expires_at).toBe(new Date(ctx.clock.now().getTime() + 48 * 3600_000).toISOString());
    ctx.clock.advanceSeconds(1);
    await runDueTimers(ctx);
    expect((await get(t.transfer_id)).status).toBe('awaiting_counterparty');
    await answer();
    expect((await get(t.transfer_id)).status).toBe('accepted');
    const bad = await post(t.transfer_id, 'tx-hash', { tx_hash: 'x' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['body', 'tx_hash']);
    const hash = `0x${'f'.repeat(64)}`;
    const done = await post(t.transfer_id, 'tx-hash', { tx_hash: hash });
    expect(done.json()).toMatchObject({ status: 'completed', tx_hash: hash });
    const again = await post(t.transfer_id, 'tx-hash', { tx_hash: hash });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ detail: "Transfer in status 'completed' does not allow this action" });
    const evs = await hookEvents(t.transfer_id);
    // Deliveries may arrive in any order: compare the set of transitions.
    const pairs = evs.map((e) => `${e.previous_status}->${e.current_status}`).sort();
    expect(pairs).toEqual(
      [
        'null->pending',
        'pending->awaiting_counterparty',
        'awaiting_counterparty->accepted',
        'accepted->completed',
      ].sort(),
    );
    expect(evs.find((e) => e.current_status === 'completed')).toMatchObject({
      tx_hash: hash,
      counterparty_vasp_name: 'Sandbox VASP Accept',
      asset: 'ETH',
    });
  });

  it('Repair: needs_repair with beneficiary.last_name, PATCH sends again, then accepted', async () => {
    const t = (
      await create(transferBody(evm('abce'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.repair }))
    ).json();
    expect(t.status).toBe('awaiting_counterparty');
    const early = await call('PATCH', `/travel-rule/transfers/${t.transfer_id}`, caller.headers, {
      beneficiary: { type: 'natural', first_name: 'Bob', last_name: 'Fixed', account_number: 'x' },
    });
    expect(early.statusCode).toBe(400);
    await answer();
    const r = await get(t.transfer_id);
    expect(r).toMatchObject({ status: 'needs_repair', repair_fields: ['beneficiary.last_name'] });
    const invalid = await call('PATCH', `/travel-rule/transfers/${t.transfer_id}`, caller.headers, {
      beneficiary: { type: 'natural', first_name: 'Bob', account_number: 'x' },
    });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().detail[0].loc).toEqual(['body', 'beneficiary', 'last_name']);
    const fixed = await call('PATCH', `/travel-rule/transfers/${t.transfer_id}`, caller.headers, {
      beneficiary: { type: 'natural', first_name: 'Bob', last_name: 'Fixed', account_number: 'x' },
    });
    expect(fixed.json()).toMatchObject({ status: 'awaiting_counterparty', repair_fields: null });
    expect(fixed.json().beneficiary.last_name).toBe('Fixed');
    // Only the beneficiary was sent: the originator and the rest stay as they were.
    expect(fixed.json()).toMatchObject({ originator: r.originator, amount: r.amount, asset: r.asset });
    await answer();
    expect((await get(t.transfer_id)).status).toBe('accepted');
  });

  it('Reject: rejected with a reason', async () => {
    const t = (
      await create(transferBody(evm('abcf'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.reject }))
    ).json();
    await answer();
    const r = await get(t.transfer_id);
    expect(r.status).toBe('rejected');
    expect(r.status_reason).toBeTruthy();
  });

  it('Silent: never answers, expires at expires_at (worker); needs_repair expires too', async () => {
    const t = (
      await create(transferBody(evm('abd0'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    await answer();
    expect((await get(t.transfer_id)).status).toBe('awaiting_counterparty');
    const rep = (
      await create(transferBody(evm('abd1'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.repair }))
    ).json();
    await answer();
    expect((await get(rep.transfer_id)).status).toBe('needs_repair');
    await pastDeadline(t.transfer_id, rep.transfer_id);
    await runDueTimers(ctx);
    expect(await get(t.transfer_id)).toMatchObject({
      status: 'expired',
      status_reason: 'The counterparty did not answer in time',
    });
    expect((await get(rep.transfer_id)).status).toBe('expired');
  });

  it('Offline (suffix 2222 and by id): counterparty_not_reachable, proceed with justification', async () => {
    const t = (await create(transferBody(evm('2222')))).json();
    expect(t).toMatchObject({
      status: 'counterparty_not_reachable',
      beneficiary_vasp: { name: 'Sandbox VASP Offline' },
    });
    const byId = (
      await create(transferBody(evm('abd2'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.offline }))
    ).json();
    expect(byId.status).toBe('counterparty_not_reachable');
    const short = await post(t.transfer_id, 'proceed', { justification: 'short' });
    expect(short.statusCode).toBe(422);
    expect(short.json().detail[0].loc).toEqual(['body', 'justification']);
    const ok = await post(t.transfer_id, 'proceed', {
      justification: 'Known counterparty, phone confirmation',
    });
    expect(ok.json()).toMatchObject({
      status: 'accepted',
      status_reason: 'Proceeded without counterparty confirmation',
      justification: 'Known counterparty, phone confirmation',
    });
  });

  it('unhosted (1111): awaiting_ownership; verified -> accepted, expired -> rejected', async () => {
    const t = (await create(transferBody(UNHOSTED_ADDR, { user_id: userId }))).json();
    expect(t).toMatchObject({ status: 'awaiting_ownership', counterparty_wallet: { hosted: false } });
    const own = (
      await call('GET', `/screening/wallet-ownership/requests/${t.ownership_request_id}`, caller.headers)
    ).json();
    expect(own).toMatchObject({ status: 'pending', user_id: userId, address: UNHOSTED_ADDR });
    const proof = await call(
      'POST',
      `/screening/wallet-ownership/requests/${t.ownership_request_id}/proof`,
      caller.headers,
      { method: 'message_signing', signature: signEip191(own.challenge.message, UNHOSTED_KEY) },
    );
    expect(proof.json().status).toBe('verified');
    expect(await get(t.transfer_id)).toMatchObject({
      status: 'accepted',
      status_reason: 'Wallet ownership verified',
    });

    const x = (await create(transferBody(evm('1111')))).json();
    expect(x.status).toBe('awaiting_ownership');
    await ctx.db
      .update(walletOwnershipRequests)
      .set({ expiresAt: new Date(ctx.clock.now().getTime() - 1000) })
      .where(eq(walletOwnershipRequests.id, x.ownership_request_id));
    await runDueScreeningTimers(ctx.deps);
    expect(await get(x.transfer_id)).toMatchObject({
      status: 'rejected',
      status_reason: 'Wallet ownership request expired',
    });
  });
});

describe('party sanctions screening', () => {
  it("screens the originator's and beneficiary's names: the hit is reported, the transfer goes on", async () => {
    const body = transferBody(evm('abce'));
    const res = await create({
      ...body,
      beneficiary: { ...body.beneficiary, last_name: 'SANCTIONED Receiver' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'awaiting_counterparty' });
    expect(res.json().sanctions_matches).toEqual([
      {
        list: 'Sandbox sanctions list',
        matched_name: 'Bob SANCTIONED Receiver',
        match_score: 100,
        entry_id: null,
        entry_name: null,
        screened_name: 'Bob SANCTIONED Receiver',
      },
    ]);
    expect(res.json().sanctions_screening).toBe('screened');
    expect((await get(res.json().transfer_id)).sanctions_matches).toHaveLength(1);
  });
});

describe('other rows', () => {
  it('below the threshold: not_required, stored and not sent', async () => {
    const t = (
      await create(transferBody(evm('abd3'), { fiat_value: { amount: '999.99', currency: 'EUR' } }))
    ).json();
    expect(t).toMatchObject({ status: 'not_required', threshold_applies: false, beneficiary_vasp: null });
    const log = await (
      ctx.deps.providers
        .travelRule as import('../../src/providers/travel-rule/simulator').SandboxTravelRuleNetwork
    ).logOf(t.transfer_id);
    expect(log).toEqual([]);
    const c = await post(t.transfer_id, 'cancel');
    expect(c.statusCode).toBe(400);
  });

  it('simulate: accept, reject, request_repair, expire; a disallowed action is 400', async () => {
    const mk = async () =>
      (await create(transferBody(evm('abd4'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))).json()
        .transfer_id;
    const a = await mk();
    expect((await simulate(a, { action: 'accept' })).json().status).toBe('accepted');
    const bad = await simulate(a, { action: 'reject' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: "Transfer in status 'accepted' does not allow this action" });
    const r = await mk();
    expect((await simulate(r, { action: 'reject' })).json().status).toBe('rejected');
    const p = await mk();
    expect(
      (await simulate(p, { action: 'request_repair', repair_fields: ['originator.address'] })).json(),
    ).toMatchObject({ status: 'needs_repair', repair_fields: ['originator.address'] });
    const e = await mk();
    expect((await simulate(e, { action: 'expire' })).json().status).toBe('expired');
  });

  it('counterparty_wallet.travel_address is for the TRP network only: 400 on the sandbox network', async () => {
    const body = transferBody(evm('abda'));
    const res = await create({
      ...body,
      counterparty_wallet: {
        ...body.counterparty_wallet,
        travel_address: 'ta2W2HPKfHxgSgrzY178knqXHg1H3jfeQrwQ9JrKBs9wv',
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail: 'counterparty_wallet.travel_address is taken by the TRP travel-rule network only',
    });
  });

  it('leaving the awaiting statuses removes the expiry timer in the same move; a leftover one is a no-op', async () => {
    const timerOf = async (id: string) =>
      rowsOf<{ status: string }>(
        await ctx.deps.db.execute(
          sql`select status from jobs where kind = 'travel_rule.transfer_expiry' and dedupe_key = ${`travel-rule-transfer:${id}`}`,
        ),
      );
    const mk = async () =>
      (await create(transferBody(evm('abd9'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))).json()
        .transfer_id as string;
    // Accepted (not final, but no longer waiting), rejected and canceled: the timer goes each time.
    const a = await mk();
    expect(await timerOf(a)).toEqual([{ status: 'pending' }]);
    expect((await simulate(a, { action: 'accept' })).json().status).toBe('accepted');
    expect(await timerOf(a)).toEqual([]);
    const r = await mk();
    expect((await simulate(r, { action: 'reject' })).json().status).toBe('rejected');
    expect(await timerOf(r)).toEqual([]);
    const c = await mk();
    expect((await post(c, 'cancel')).json().status).toBe('canceled');
    expect(await timerOf(c)).toEqual([]);
    // needs_repair still waits for an answer: the timer stays.
    const p = await mk();
    await simulate(p, { action: 'request_repair', repair_fields: ['originator.address'] });
    expect(await timerOf(p)).toEqual([{ status: 'pending' }]);
    // A timer left by the previous release on a finished transfer fires and changes nothing.
    const before = await get(a);
    const fired = await transferExpiryTimer.fire(
      ctx.deps,
      { transferId: a, clientId: caller.clientId },
      {} as never,
    );
    expect(fired).toBe(false);
    expect(await get(a)).toEqual(before);
  });

  it('cancel from any non-terminal status tells the counterparty', async () => {
    const t = (
      await create(transferBody(evm('abd5'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    const c = await post(t.transfer_id, 'cancel');
    expect(c.json()).toMatchObject({ status: 'canceled' });
    const sim = ctx.deps.providers
      .travelRule as import('../../src/providers/travel-rule/simulator').SandboxTravelRuleNetwork;
    expect((await sim.logOf(t.transfer_id)).map((l) => l.kind)).toEqual(['sent', 'canceled']);
    expect((await post(t.transfer_id, 'cancel')).statusCode).toBe(400);
  });

  it('inbound: awaiting_review with name matching; accept, reject, expire', async () => {
    const wallet = evm('abd6');
    await call('POST', '/screening/wallet', caller.headers, {
      chain: 'ethereum',
      address: wallet,
      user_id: userId,
    });
    const inbound = (beneficiary: Json) =>
      call('POST', '/sandbox/travel-rule/inbound', caller.headers, {
        asset: 'ETH',
        chain: 'ethereum',
        amount: '2',
        fiat_value: { amount: '5000.00', currency: 'EUR' },
        originator: {
          type: 'natural',
          first_name: 'Olga',
          last_name: 'Orig',
          account_number: 'o1',
          date_of_birth: '1980-01-01',
        },
        beneficiary: { type: 'natural', account_number: wallet, ...beneficiary },
        beneficiary_address: wallet,
      });
    const exact = await inbound({ first_name: 'jane', last_name: 'ROE' });
    expect(exact.statusCode).toBe(201);
    expect(exact.json()).toMatchObject({
      direction: 'inbound',
      status: 'awaiting_review',
      name_match: 'exact',
      user_id: userId,
    });
    const partial = (await inbound({ first_name: 'Janet', last_name: 'Roe' })).json();
    expect(partial.name_match).toBe('partial');
    const none = (await inbound({ first_name: 'Max', last_name: 'Muster' })).json();
    expect(none.name_match).toBe('none');
    expect((await post(exact.json().transfer_id, 'accept')).json().status).toBe('accepted');
    const rj = await post(partial.transfer_id, 'reject', { reason: 'Name mismatch' });
    expect(rj.json()).toMatchObject({ status: 'rejected', status_reason: 'Name mismatch' });
    const empty = await post(none.transfer_id, 'reject', { reason: '' });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail[0].loc).toEqual(['body', 'reason']);
    await pastDeadline(none.transfer_id);
    await runDueTimers(ctx);
    // An inbound transfer expires for want of our review, not of the counterparty's answer.
    expect(await get(none.transfer_id)).toMatchObject({
      status: 'expired',
      status_reason: 'Not reviewed in time',
    });
    // The sandbox's simulate `expire` does the same for an inbound transfer awaiting review.
    const later = (await inbound({ first_name: 'Jane', last_name: 'Roe' })).json();
    expect((await simulate(later.transfer_id, { action: 'expire' })).json()).toMatchObject({
      status: 'expired',
      status_reason: 'Not reviewed in time',
    });
    expect((await simulate(later.transfer_id, { action: 'expire' })).statusCode).toBe(400);
    const outbound = (
      await create(transferBody(evm('abd7'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    const notInbound = await post(outbound.transfer_id, 'accept');
    expect(notInbound.statusCode).toBe(400);
  });
});

describe('validation, duplicates, lists, isolation', () => {
  it('422 with loc for parties, address and amounts; 409 on a duplicate client_reference; 404 VASP', async () => {
    const body = transferBody(evm('abd8'));
    const noIdentity = await create({
      ...body,
      originator: { type: 'natural', first_name: 'A', last_name: 'B', account_number: 'x' },
    });
    expect(noIdentity.statusCode).toBe(422);
    expect(noIdentity.json().detail[0].loc).toEqual(['body', 'originator', 'address']);
    const legal = await create({ ...body, beneficiary: { type: 'legal', account_number: 'x' } });
    expect(legal.json().detail[0].loc).toEqual(['body', 'beneficiary', 'legal_name']);
    const addr = await create({ ...body, counterparty_wallet: { address: 'nope' } });
    expect(addr.statusCode).toBe(422);
    expect(addr.json().detail[0].loc).toEqual(['body', 'counterparty_wallet', 'address']);
    const amount = await create({ ...body, fiat_value: { amount: '1.234', currency: 'EUR' } });
    expect(amount.statusCode).toBe(422);
    expect(amount.json().detail[0].loc.slice(0, 3)).toEqual(['body', 'fiat_value', 'amount']);
    const vasp = await create({ ...body, beneficiary_vasp_id: '00000000-0000-4000-8000-000000000000' });
    expect(vasp.statusCode).toBe(404);
    expect(vasp.json()).toEqual({ detail: 'VASP not found' });
    expect((await create(body)).statusCode).toBe(201);
    const dup = await create(body);
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({ detail: 'Transfer with this client_reference already exists' });
  });

  it('counters envelope, filters and q', async () => {
    const hash = `0x${'c0ffee'.repeat(10)}`;
    const t = (
      await create(
        transferBody(evm('abd9'), {
          originator: {
            type: 'legal',
            legal_name: 'Zyxwv Holdings',
            account_number: 'z',
            date_of_birth: '2000-01-01',
          },
        }),
      )
    ).json();
    await simulate(t.transfer_id, { action: 'accept' }).catch(() => undefined);
    const list = (await call('GET', '/travel-rule/transfers?page_size=2', caller.headers)).json();
    expect(Object.keys(list).sort()).toEqual([
      'page',
      'page_size',
      'records',
      'total',
      'total_pages',
      'transfers',
    ]);
    expect(list.records).toBe(2);
    expect(list.total_pages).toBe(Math.ceil(list.total / 2));
    const byName = (await call('GET', '/travel-rule/transfers?q=zyXWV', caller.headers)).json();
    expect(byName.transfers.map((x: Json) => x.transfer_id)).toEqual([t.transfer_id]);
    const byRef = (
      await call('GET', `/travel-rule/transfers?q=${t.client_reference}`, caller.headers)
    ).json();
    expect(byRef.total).toBe(1);
    const completed = (
      await create(transferBody(evm('abda'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    await simulate(completed.transfer_id, { action: 'accept' });
    await post(completed.transfer_id, 'tx-hash', { tx_hash: hash });
    const byHash = (await call('GET', '/travel-rule/transfers?q=C0FFEEC0FFEE', caller.headers)).json();
    expect(byHash.transfers.map((x: Json) => x.transfer_id)).toEqual([completed.transfer_id]);
    const inbound = (
      await call('GET', '/travel-rule/transfers?direction=inbound&status=accepted', caller.headers)
    ).json();
    expect(inbound.transfers.every((x: Json) => x.direction === 'inbound' && x.status === 'accepted')).toBe(
      true,
    );
    const empty = (await call('GET', '/travel-rule/transfers?q=nothing-matches-this', caller.headers)).json();
    expect(empty).toEqual({ transfers: [], records: 0, page: 1, page_size: 20, total: 0, total_pages: 0 });
    const later = new Date(ctx.clock.now().getTime() + 86400_000).toISOString();
    const fromLater = (await call('GET', `/travel-rule/transfers?from=${later}`, caller.headers)).json();
    expect(fromLater.total).toBe(0);
    const toLater = (await call('GET', `/travel-rule/transfers?to=${later}`, caller.headers)).json();
    expect(toLater.total).toBe(list.total + 1);
    const byAsset = (
      await call('GET', '/travel-rule/transfers?asset=BTC&chain=ethereum', caller.headers)
    ).json();
    expect(byAsset.transfers.every((x: Json) => x.asset === 'BTC')).toBe(true);
    const badQ = await call('GET', '/travel-rule/transfers?q=%20%20', caller.headers);
    expect(badQ.statusCode).toBe(422);
    expect(badQ.json().detail[0].loc).toEqual(['query', 'q']);
    expect((await call('GET', '/travel-rule/transfers?page_size=201', caller.headers)).statusCode).toBe(422);
  });

  it("another client's transfer is 404 everywhere", async () => {
    const t = (
      await create(transferBody(evm('abdb'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    const nf = { detail: 'Transfer not found' };
    const g = await call('GET', `/travel-rule/transfers/${t.transfer_id}`, other.headers);
    expect([g.statusCode, g.json()]).toEqual([404, nf]);
    const c = await call('POST', `/travel-rule/transfers/${t.transfer_id}/cancel`, other.headers);
    expect([c.statusCode, c.json()]).toEqual([404, nf]);
    const s = await call('POST', `/sandbox/travel-rule/transfers/${t.transfer_id}/simulate`, other.headers, {
      action: 'accept',
    });
    expect(s.statusCode).toBe(404);
    const l = (await call('GET', '/travel-rule/transfers', other.headers)).json();
    expect(l.total).toBe(0);
  });

  it('an unsigned or badly signed notification is 401', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/providers/travel-rule/notifications',
      payload: { event_id: 'x', type: 'transfer.accepted', reference: 'x', revision: 9 },
      headers: { 'x-provider-signature': 't=1,v1=00' },
    });
    expect(res.statusCode).toBe(401);
  });
});
