/**
 * Signed provider notifications: 401 before parsing, replay and out-of-order are no-ops, status
 * and record change in one transaction with the event, and the events reach a real receiver
 * through the outbox with every field of the spec's tables.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, webhookDeliveries } from '../../src/db/schema/index';
import { PaymentMessages } from '../../src/modules/payments/payments.messages';
import { createDeliveryDispatcher, type DeliveryDispatcher } from '../../src/outbox/dispatcher';
import { signProviderPayload } from '../../src/providers/signature';
import { newId } from '../../src/shared/ids';
import { createTestApp, type TestContext } from '../helpers/app';
import { type Receiver, startReceiver } from '../helpers/receiver';
import { setMainWebhook, signatureMatches } from '../helpers/webhooks';
import { eventsOf } from '../org/fixtures';
import { api, createKycWorld, createLink, type KycWorld, providerRefOf, simulate } from './fixtures';

let ctx: TestContext;
let rx: Receiver;
let dispatcher: DeliveryDispatcher;
beforeAll(async () => {
  ctx = await createTestApp();
  rx = await startReceiver();
  dispatcher = createDeliveryDispatcher(ctx.deps);
});
afterAll(async () => {
  await dispatcher?.close();
  await rx?.close();
  await ctx?.close();
});

const URL_ = '/api/v1/providers/verification/notifications';

function post(rawBody: string, headers: Record<string, string> = {}) {
  return ctx.app.inject({
    method: 'POST',
    url: URL_,
    payload: rawBody,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function signed(body: Record<string, unknown>, at = ctx.clock.now()) {
  const raw = JSON.stringify(body);
  return {
    raw,
    headers: { 'x-provider-signature': signProviderPayload(ctx.deps.secrets.providerWebhookSecret, raw, at) },
  };
}

const userOf = async (w: KycWorld) =>
  (await api(ctx, 'GET', `/kyc/users/${w.userId}`, w.caller.headers)).json();

describe('signature', () => {
  it('401 when unsigned, badly signed, stale or garbage, before parsing', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w);
    const body = {
      event_id: newId(),
      verification_ref: await providerRefOf(ctx, link.verification_id),
      status: 'approved',
      revision: 9,
      occurred_at: ctx.clock.now().toISOString(),
    };
    const good = signed(body);
    const attempts: [string, Record<string, string>][] = [
      [good.raw, {}],
      [good.raw, { 'x-provider-signature': 'garbage' }],
      [
        good.raw,
        {
          'x-provider-signature': good.headers['x-provider-signature'].replace(
            /v1=(.)/,
            (_m, c: string) => `v1=${c === '0' ? '1' : '0'}`,
          ),
        },
      ],
      [`${good.raw} `, good.headers],
      [good.raw, signed(body, new Date(ctx.clock.now().getTime() - 301_000)).headers],
      ['{not json', {}],
      ['', {}],
    ];
    for (const [raw, headers] of attempts) {
      const res = await post(raw, headers);
      expect(res.statusCode, raw).toBe(401);
      expect(res.json()).toEqual({ detail: PaymentMessages.invalidNotificationSignature });
    }
    // the bank's header does not count
    const bank = await post(good.raw, { 'x-bank-signature': good.headers['x-provider-signature'] });
    expect(bank.statusCode).toBe(401);
    expect((await userOf(w)).kyc_status).toBe('pending');
  });

  it('a correctly signed notification for an unknown session is acknowledged, nothing applied', async () => {
    const n = signed({
      event_id: newId(),
      verification_ref: 'vs_unknown',
      status: 'approved',
      revision: 1,
      occurred_at: ctx.clock.now().toISOString(),
    });
    const res = await post(n.raw, n.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, applied: false });
  });
});

describe('replay and order', () => {
  it('replaying a notification is a 200 no-op with no second event', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w);
    ctx.clock.advanceSeconds(5);
    expect((await simulate(ctx, w, link.verification_id, 'approved')).statusCode).toBe(200);
    const before = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect(before.map((e) => e.data.current_kyc_status)).toEqual(['pending', 'approved']);
    const detailBefore = (await api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers)).json();
    // the provider's notification of revision 1, sent again (same event id) and again later
    const n = signed({
      event_id: 'evt-replayed',
      verification_ref: await providerRefOf(ctx, link.verification_id),
      status: 'approved',
      revision: 1,
      occurred_at: ctx.clock.now().toISOString(),
    });
    for (let i = 0; i < 2; i++) {
      ctx.clock.advanceSeconds(1);
      const res = await post(n.raw, n.headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true, applied: false });
    }
    expect(await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed')).toHaveLength(2);
    expect((await api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers)).json()).toEqual(detailBefore);
  });

  it('an older notification arriving after a newer decision does not regress the status', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w);
    const t0 = ctx.clock.now();
    await simulate(ctx, w, link.verification_id, 'in_review');
    ctx.clock.advanceSeconds(30);
    await simulate(ctx, w, link.verification_id, 'approved');
    expect((await userOf(w)).kyc_status).toBe('approved');
    // the in_review notification (revision 1) arrives late
    const late = signed({
      event_id: newId(),
      verification_ref: await providerRefOf(ctx, link.verification_id),
      status: 'in_review',
      revision: 1,
      occurred_at: t0.toISOString(),
    });
    const res = await post(late.raw, late.headers);
    expect(res.json()).toEqual({ received: true, applied: false });
    expect((await userOf(w)).kyc_status).toBe('approved');
    expect((await api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers)).json().status).toBe(
      'approved',
    );

    // across verifications: an older verification's late decision does not override a newer one
    ctx.clock.advanceSeconds(30);
    const old = await createLink(ctx, w);
    ctx.clock.advanceSeconds(30);
    const newer = await createLink(ctx, w);
    await simulate(ctx, w, newer.verification_id, 'declined');
    expect((await userOf(w)).kyc_status).toBe('rejected');
    ctx.clock.advanceSeconds(30);
    await simulate(ctx, w, old.verification_id, 'approved');
    // the provider reported the old one later, so it is the latest report: status follows it
    expect((await userOf(w)).kyc_status).toBe('approved');
  });

  it('expired falls back to the previous decided record, or none', async () => {
    const w = await createKycWorld(ctx);
    const l1 = await createLink(ctx, w);
    await simulate(ctx, w, l1.verification_id, 'expired');
    expect((await userOf(w)).kyc_status).toBe('none');
    ctx.clock.advanceSeconds(10);
    const l2 = await createLink(ctx, w);
    await simulate(ctx, w, l2.verification_id, 'approved');
    ctx.clock.advanceSeconds(10);
    const l3 = await createLink(ctx, w);
    expect((await userOf(w)).kyc_status).toBe('approved'); // a new link leaves approved alone
    await simulate(ctx, w, l3.verification_id, 'expired');
    expect((await userOf(w)).kyc_status).toBe('approved');
    const evs = await eventsOf(ctx, w.caller.clientId, 'kyc.status_changed');
    expect(evs.map((e) => [e.data.previous_kyc_status, e.data.current_kyc_status, e.data.source])).toEqual([
      ['none', 'pending', 'client_api'],
      ['pending', 'none', 'provider_webhook'],
      ['none', 'pending', 'client_api'],
      ['pending', 'approved', 'provider_webhook'],
    ]);
  });

  it('a user attested externally after the link keeps its attestation; the record is still stored', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w);
    await api(ctx, 'POST', `/kyc/users/${w.userId}/attestation`, w.caller.headers, { status: 'verified' });
    await simulate(ctx, w, link.verification_id, 'declined');
    const u = await userOf(w);
    expect(u.kyc_status).toBe('approved');
    expect(u.verification_mode).toBe('external_attestation');
    expect((await api(ctx, 'GET', `/kyc/detail/${w.userId}`, w.caller.headers)).json().status).toBe(
      'declined',
    );
  });

  it('the record and the status commit with the event in one transaction', async () => {
    const w = await createKycWorld(ctx);
    const link = await createLink(ctx, w);
    await simulate(ctx, w, link.verification_id, 'approved');
    const [ev] = await ctx.db
      .select()
      .from(events)
      .where(
        and(
          eq(events.type, 'kyc.status_changed'),
          sql`${events.data}->>'user_id' = ${w.userId}`,
          sql`${events.data}->>'source' = 'provider_webhook'`,
        ),
      );
    expect(ev).toBeDefined();
    expect(ev!.occurredAt.toISOString()).toBe(ctx.clock.now().toISOString());
  });
});

describe('events through the outbox to a real receiver', () => {
  it('delivers kyc.status_changed and kyb.status_changed with every field, signed', async () => {
    const w = await createKycWorld(ctx);
    await setMainWebhook(ctx, w.caller.clientId, `${rx.url}/kyc-hook`);
    const secret = (await api(ctx, 'POST', '/webhooks/subscription/secret', w.caller.headers)).json()
      .webhook_secret as string;
    const link = await createLink(ctx, w);
    ctx.clock.advanceSeconds(5);
    await simulate(ctx, w, link.verification_id, 'approved');
    const kyb = await createLink(ctx, w, {}, 'kyb');
    ctx.clock.advanceSeconds(5);
    await simulate(ctx, w, kyb.verification_id, 'declined');

    const rows = await ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.clientId, w.caller.clientId));
    expect(rows).toHaveLength(4);
    await dispatcher.drain();
    const got = rx.on('/kyc-hook').map((r) => ({ r, body: JSON.parse(r.rawBody) }));
    expect(got).toHaveLength(4);
    for (const { r } of got) {
      expect(signatureMatches(secret, r)).toBe(true);
      expect(r.headers['x-svc-event-type']).toMatch(/^ky[cb]\.status_changed$/);
    }
    const kycApproved = got.find(
      (g) => g.body.type === 'kyc.status_changed' && g.body.data.current_kyc_status === 'approved',
    )!.body;
    expect(kycApproved).toMatchObject({ version: 'v1', client_id: w.caller.clientId });
    expect(kycApproved.data).toEqual({
      user_id: w.userId,
      email: w.email,
      verification_mode: 'service_kyc',
      previous_kyc_status: 'pending',
      current_kyc_status: 'approved',
      previous_external_status: null,
      current_external_status: null,
      previous_verification_source: 'none',
      current_verification_source: 'service',
      source: 'provider_webhook',
    });
    const kybDeclined = got.find(
      (g) => g.body.type === 'kyb.status_changed' && g.body.data.current_kyb_status === 'rejected',
    )!.body;
    expect(kybDeclined.data).toEqual({
      business_customer_id: w.businessId,
      company_name: 'Roe Trading Ltd',
      registration_number: '09876543',
      country: 'GB',
      verification_mode: 'service_kyb',
      previous_kyb_status: 'pending',
      current_kyb_status: 'rejected',
      previous_external_status: null,
      current_external_status: null,
      previous_verification_source: 'none',
      current_verification_source: 'service',
      source: 'provider_webhook',
    });
  });
});
