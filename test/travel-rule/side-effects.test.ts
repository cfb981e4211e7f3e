/**
 * Travel rule side effects: activity entries and notifications in the changing transaction,
 * idempotent create, answers going back to the originator VASP, replayed notifications, ownership
 * failure -> rejected, feature switch.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityLogs, notifications } from '../../src/db/schema/index';
import { signProviderPayload } from '../../src/providers/signature';
import type { SandboxTravelRuleNetwork } from '../../src/providers/travel-rule/simulator';
import { createTestApp, type TestContext } from '../helpers/app';
import type { TestCaller } from '../helpers/clients';
import { api, evm, SANDBOX_VASP_IDS, transferBody, travelRuleClient } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let owner: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp({
    env: { SVC_WALLET_OWNERSHIP_MAX_ATTEMPTS: '1', SVC_SCREENING_SYNC_TIMEOUT_MS: '60000' },
  });
  call = api(ctx);
  owner = await travelRuleClient(ctx);
}, 120_000);
afterAll(() => ctx?.close());

const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/travel-rule/transfers', { ...owner.headers, ...headers }, body);
const sim = () => ctx.deps.providers.travelRule as SandboxTravelRuleNetwork;

describe('activity and notifications', () => {
  it('writes activity entries per change and notifies owner and operations on counterparty_not_reachable', async () => {
    const t = (await create(transferBody(evm('2222')))).json();
    expect(t.status).toBe('counterparty_not_reachable');
    const acts = await ctx.db
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.clientId, owner.clientId), eq(activityLogs.targetId, t.transfer_id)));
    expect(acts.map((a) => a.action).sort()).toEqual([
      'travel_rule_transfer.counterparty_not_reachable',
      'travel_rule_transfer.created',
    ]);
    const notes = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, owner.clientId), eq(notifications.category, 'travel_rule')));
    expect(notes.length).toBe(1);
    expect(notes[0]).toMatchObject({ accountId: owner.accountId, severity: 'warning' });
    const settingsActs = await ctx.db
      .select()
      .from(activityLogs)
      .where(
        and(
          eq(activityLogs.clientId, owner.clientId),
          eq(activityLogs.action, 'travel_rule_settings.updated'),
        ),
      );
    expect(settingsActs.length).toBe(1);
  });
});

describe('linked screening and the other notifying statuses', () => {
  it('the counterparty address is screened (section 3 suffixes apply) and the risk is only reported', async () => {
    const t = (await create(transferBody(evm('9999')))).json();
    expect(t.status).toBe('awaiting_counterparty');
    expect(t.counterparty_wallet).toMatchObject({ risk_level: 'severe', hosted: true });
    const s = (
      await call('GET', `/screening/wallet/${t.counterparty_wallet.screening_id}`, owner.headers)
    ).json();
    expect(s).toMatchObject({
      trigger: 'travel_rule',
      sanctions_hit: true,
      wallet_id: t.counterparty_wallet.wallet_id,
    });
  });

  it('needs_repair, rejected and awaiting_review notify owner and operations', async () => {
    const count = async () =>
      (
        await ctx.db
          .select()
          .from(notifications)
          .where(and(eq(notifications.clientId, owner.clientId), eq(notifications.category, 'travel_rule')))
      ).map((n) => n.title);
    const before = await count();
    const a = (
      await create(transferBody(evm('abd1'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    await call('POST', `/sandbox/travel-rule/transfers/${a.transfer_id}/simulate`, owner.headers, {
      action: 'request_repair',
    });
    const b = (
      await create(transferBody(evm('abd2'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    await call('POST', `/sandbox/travel-rule/transfers/${b.transfer_id}/simulate`, owner.headers, {
      action: 'reject',
    });
    await call('POST', '/sandbox/travel-rule/inbound', owner.headers, {
      asset: 'ETH',
      chain: 'ethereum',
      amount: '1',
      fiat_value: { amount: '900.00', currency: 'EUR' },
      originator: {
        type: 'natural',
        first_name: 'O',
        last_name: 'P',
        account_number: 'o',
        date_of_birth: '1990-01-01',
      },
      beneficiary: { type: 'natural', first_name: 'Q', last_name: 'R', account_number: 'b' },
      beneficiary_address: evm('abd3'),
    });
    const titles = await count();
    for (const b of before) titles.splice(titles.indexOf(b), 1);
    expect(titles.sort()).toEqual([
      'Inbound travel-rule transfer awaits review',
      'Travel-rule transfer needs repair',
      'Travel-rule transfer rejected',
    ]);
  });
});

describe('idempotency and the network', () => {
  it('the same X-Idempotency-Key replays with 200; another payload is 409', async () => {
    const body = transferBody(evm('abcd'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent });
    const first = await create(body, { 'x-idempotency-key': 'tr-key-1' });
    expect(first.statusCode).toBe(201);
    const again = await create(body, { 'x-idempotency-key': 'tr-key-1' });
    expect(again.statusCode).toBe(200);
    expect(again.json().transfer_id).toBe(first.json().transfer_id);
    const other = await create({ ...body, amount: '2' }, { 'x-idempotency-key': 'tr-key-1' });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({
      detail: 'Idempotency key already used with a different request payload.',
    });
  });

  it('a replayed or older notification changes nothing; a stale signature is 401', async () => {
    const t = (
      await create(transferBody(evm('abce'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }))
    ).json();
    const send = (payload: Record<string, unknown>, at = ctx.clock.now()) => {
      const raw = JSON.stringify(payload);
      return ctx.app.inject({
        method: 'POST',
        url: '/api/v1/providers/travel-rule/notifications',
        payload: raw,
        headers: {
          'content-type': 'application/json',
          'x-provider-signature': signProviderPayload(ctx.deps.secrets.providerWebhookSecret, raw, at),
        },
      });
    };
    const repair = {
      event_id: 'e1',
      type: 'transfer.repair_requested',
      reference: t.transfer_id,
      revision: 5,
      repair_fields: ['beneficiary.last_name'],
    };
    expect((await send(repair)).json()).toEqual({ received: true, applied: true });
    expect((await send(repair)).json()).toEqual({ received: true, applied: false });
    const older = { event_id: 'e2', type: 'transfer.rejected', reference: t.transfer_id, revision: 4 };
    expect((await send(older)).json()).toEqual({ received: true, applied: false });
    const stale = await send({ ...older, revision: 9 }, new Date(ctx.clock.now().getTime() - 301_000));
    expect(stale.statusCode).toBe(401);
    const now = (await call('GET', `/travel-rule/transfers/${t.transfer_id}`, owner.headers)).json();
    expect(now.status).toBe('needs_repair');
  });

  it('inbound accept and reject go back to the originator VASP', async () => {
    const inbound = async () =>
      (
        await call('POST', '/sandbox/travel-rule/inbound', owner.headers, {
          asset: 'BTC',
          chain: 'ethereum',
          amount: '0.1',
          fiat_value: { amount: '900.00', currency: 'EUR' },
          originator: {
            type: 'legal',
            legal_name: 'Orig GmbH',
            account_number: 'o',
            national_identifier: { type: 'LEI', value: 'X', country: 'DE' },
          },
          beneficiary: { type: 'legal', legal_name: 'Nobody Ltd', account_number: 'b' },
          beneficiary_address: evm('abcf'),
        })
      ).json();
    const a = await inbound();
    expect(a).toMatchObject({
      status: 'awaiting_review',
      name_match: 'none',
      originator_vasp: { name: 'Sandbox VASP Accept' },
    });
    await call('POST', `/travel-rule/transfers/${a.transfer_id}/accept`, owner.headers);
    const b = await inbound();
    await call('POST', `/travel-rule/transfers/${b.transfer_id}/reject`, owner.headers, {
      reason: 'Unknown customer',
    });
    const logA = await sim().logOf(
      (await ctx.db.query.travelRuleTransfers.findFirst({ where: (t, { eq }) => eq(t.id, a.transfer_id) }))!
        .networkRef!,
    );
    const logB = await sim().logOf(
      (await ctx.db.query.travelRuleTransfers.findFirst({ where: (t, { eq }) => eq(t.id, b.transfer_id) }))!
        .networkRef!,
    );
    expect(logA.map((l) => [l.kind, (l.payload as { log: { answer: string } }).log.answer])).toEqual([
      ['responded', 'accepted'],
    ]);
    expect(logB.map((l) => [l.kind, (l.payload as { log: { answer: string } }).log.answer])).toEqual([
      ['responded', 'rejected'],
    ]);
  });

  it('an unhosted wallet whose ownership proof fails: rejected', async () => {
    const t = (await create(transferBody(evm('1111')))).json();
    expect(t.status).toBe('awaiting_ownership');
    const bad = await call(
      'POST',
      `/screening/wallet-ownership/requests/${t.ownership_request_id}/proof`,
      owner.headers,
      {
        method: 'message_signing',
        signature: `0x${'1'.repeat(130)}`,
      },
    );
    expect(bad.statusCode).toBe(400);
    const now = (await call('GET', `/travel-rule/transfers/${t.transfer_id}`, owner.headers)).json();
    expect(now).toMatchObject({
      status: 'rejected',
      status_reason: 'Wallet ownership could not be verified',
    });
  });

  it('writes in a disabled area are 403; reads still work', async () => {
    await ctx.db.execute(
      sql`update clients set features = coalesce(features, '{}'::jsonb) || '{"travel_rule": false}'::jsonb where id = ${owner.clientId}::uuid`,
    );
    const res = await create(transferBody(evm('abd0')));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'Travel rule is disabled for this client' });
    expect((await call('GET', '/travel-rule/transfers', owner.headers)).statusCode).toBe(200);
  });
});
