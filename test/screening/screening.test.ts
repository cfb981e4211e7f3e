/**
 * Wallet screening end to end: every sandbox suffix, synchronous and asynchronous (5555 through the
 * signed route), caching by max_age_seconds, monitored re-screens by the due timers, the counters
 * envelope and `q`, risk fields, events, cross-client 404s, signed-route 401s.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications } from '../../src/db/schema/index';
import { signProviderPayload } from '../../src/providers/signature';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { createKycWorld } from '../kyc/fixtures';
import { api, eventsOf, evm, runDueTimers } from './fixtures';

let ctx: TestContext;
let call: ReturnType<typeof api>;
let caller: TestCaller;
let other: TestCaller;
let userId: string;

beforeAll(async () => {
  ctx = await createTestApp({
    env: { SVC_SANDBOX_SCREENING_DELAY_SECONDS: '5', SVC_SCREENING_RESCREEN_HOURS: '24' },
  });
  call = api(ctx);
  const world = await createKycWorld(ctx);
  caller = world.caller;
  userId = world.userId;
  other = await createTestClient(ctx);
});
afterAll(() => ctx.close());

/** A fresh token for the same client and role (the manual clock moves past token lifetimes). */
async function refresh() {
  caller = { ...(await createTestClient(ctx, { clientId: caller.clientId })), clientId: caller.clientId };
  other = await createTestClient(ctx, { clientId: other.clientId });
}

const screen = (address: string, extra: Record<string, unknown> = {}, who = caller) =>
  call('POST', '/screening/wallet', who.headers, { chain: 'ethereum', address, ...extra });

describe('wallet screening by sandbox suffix', () => {
  it('9999 is severe with a sanctions hit and a direct sanctions exposure', async () => {
    const res = await screen(evm('9999'), { client_reference: 'ref-9999', asset: 'ETH' });
    expect(res.statusCode).toBe(201);
    const s = res.json();
    expect(s).toMatchObject({
      status: 'completed',
      risk_level: 'severe',
      sanctions_hit: true,
      categories: ['sanctions'],
      trigger: 'api',
      cached: false,
      client_reference: 'ref-9999',
      asset: 'ETH',
      failure_reason: null,
    });
    expect(s.risk_score).toBeGreaterThanOrEqual(85);
    expect(s.exposures).toEqual([
      expect.objectContaining({ category: 'sanctions', exposure_type: 'direct', direction: 'incoming' }),
    ]);
    expect(JSON.stringify(s)).not.toMatch(/chainalysis|trm|elliptic/i);
  });

  it('8888 is high with an indirect mixer exposure of 35 percent', async () => {
    const s = (await screen(evm('8888'))).json();
    expect(s).toMatchObject({
      status: 'completed',
      risk_level: 'high',
      sanctions_hit: false,
      categories: ['mixer'],
    });
    expect(s.risk_score).toBeGreaterThanOrEqual(60);
    expect(s.risk_score).toBeLessThan(85);
    expect(s.exposures[0]).toMatchObject({ category: 'mixer', exposure_type: 'indirect', percentage: 35 });
  });

  it('7777 is medium gambling, 6666 unknown with score 0, anything else low with score 5', async () => {
    const medium = (await screen(evm('7777'))).json();
    expect(medium).toMatchObject({ risk_level: 'medium', categories: ['gambling'] });
    expect(medium.risk_score).toBeGreaterThanOrEqual(30);
    const unknown = (await screen(evm('6666'))).json();
    expect(unknown).toMatchObject({
      status: 'completed',
      risk_level: 'unknown',
      risk_score: 0,
      sanctions_hit: false,
    });
    const low = (await screen(evm('1234'))).json();
    expect(low).toMatchObject({ risk_level: 'low', risk_score: 5, categories: [] });
    // The wallet of an unknown screening is unknown, never low.
    const w = (await call('GET', `/screening/wallets/${unknown.wallet_id}`, caller.headers)).json();
    expect(w.risk_level).toBe('unknown');
  });

  it('4444 fails with the provider error and sends the event', async () => {
    const s = (await screen(evm('4444'))).json();
    expect(s).toMatchObject({
      status: 'failed',
      failure_reason: 'Screening provider error',
      risk_level: null,
    });
    const ev = (await eventsOf(ctx, caller.clientId, 'screening.wallet.completed')).find(
      (e) => e.screening_id === s.screening_id,
    );
    expect(ev).toMatchObject({ status: 'failed', trigger: 'api', previous_risk_level: 'unknown' });
  });

  it('5555 answers pending and completes as low through the signed route after the delay', async () => {
    const s = (await screen(evm('5555'), { client_reference: 'async-1' })).json();
    expect(s).toMatchObject({ status: 'pending', risk_level: null, risk_score: null, completed_at: null });
    await runDueTimers(ctx);
    expect((await call('GET', `/screening/wallet/${s.screening_id}`, caller.headers)).json().status).toBe(
      'pending',
    );
    ctx.clock.advance(5000);
    await runDueTimers(ctx);
    const done = (await call('GET', `/screening/wallet/${s.screening_id}`, caller.headers)).json();
    expect(done).toMatchObject({ status: 'completed', risk_level: 'low', risk_score: 5 });
    const ev = (await eventsOf(ctx, caller.clientId, 'screening.wallet.completed')).filter(
      (e) => e.screening_id === s.screening_id,
    );
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ client_reference: 'async-1', risk_level: 'low', status: 'completed' });
  });

  it('3333 is low at first and high on every re-screen, with previous_risk_level', async () => {
    const first = (await screen(evm('3333'))).json();
    expect(first.risk_level).toBe('low');
    const again = await call('POST', `/screening/wallets/${first.wallet_id}/rescreen`, caller.headers);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toMatchObject({ risk_level: 'high', trigger: 'rescreen' });
    expect(again.json().screening_id).not.toBe(first.screening_id);
    const ev = (await eventsOf(ctx, caller.clientId, 'screening.wallet.completed')).find(
      (e) => e.screening_id === again.json().screening_id,
    );
    expect(ev).toMatchObject({ previous_risk_level: 'low', risk_level: 'high', trigger: 'rescreen' });
  });

  it('simulate completes a pending screening through the signed route; not pending is 400', async () => {
    const s = (await screen(evm('5555'))).json();
    const sim = await call('POST', `/sandbox/screening/wallet/${s.screening_id}/simulate`, caller.headers, {
      risk_level: 'low',
      sanctions_hit: true,
    });
    expect(sim.statusCode).toBe(200);
    expect(sim.json()).toMatchObject({ status: 'completed', risk_level: 'severe', sanctions_hit: true });
    const again = await call('POST', `/sandbox/screening/wallet/${s.screening_id}/simulate`, caller.headers, {
      risk_level: 'high',
    });
    expect(again.statusCode).toBe(400);
    // The delayed sandbox answer arriving later changes nothing (final is final).
    ctx.clock.advance(5000);
    await runDueTimers(ctx);
    expect((await call('GET', `/screening/wallet/${s.screening_id}`, caller.headers)).json().risk_level).toBe(
      'severe',
    );
  });
});

describe('caching, wallets, monitoring', () => {
  it('reuses a completed screening younger than max_age_seconds (200, cached) and screens again otherwise', async () => {
    const address = evm('2468');
    const first = await screen(address);
    expect(first.statusCode).toBe(201);
    const cached = await screen(address.toUpperCase().replace('0X', '0x'), { max_age_seconds: 60 });
    expect(cached.statusCode).toBe(200);
    expect(cached.json()).toMatchObject({ screening_id: first.json().screening_id, cached: true });
    ctx.clock.advance(61_000);
    const fresh = await screen(address, { max_age_seconds: 60 });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.json().wallet_id).toBe(first.json().wallet_id);
    const zero = await screen(address);
    expect(zero.statusCode).toBe(201);
  });

  it('monitored wallets are re-screened by the worker every SVC_SCREENING_RESCREEN_HOURS', async () => {
    const s = (
      await screen(evm('3333'), { monitor: true, label: 'Treasury hot wallet', user_id: userId })
    ).json();
    await runDueTimers(ctx);
    let w = (await call('GET', `/screening/wallets/${s.wallet_id}`, caller.headers)).json();
    expect(w.screenings).toHaveLength(1);
    ctx.clock.advance(24 * 3600_000);
    await runDueTimers(ctx);
    await refresh();
    w = (await call('GET', `/screening/wallets/${s.wallet_id}`, caller.headers)).json();
    expect(w.screenings).toHaveLength(2);
    expect(w.screenings[0]).toMatchObject({ trigger: 'monitoring', risk_level: 'high' });
    expect(w).toMatchObject({
      risk_level: 'high',
      monitored: true,
      label: 'Treasury hot wallet',
      user_id: userId,
    });
    // The rise to high on a monitored wallet notified owner and operations.
    const inbox = await ctx.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.clientId, caller.clientId), eq(notifications.category, 'screening')));
    expect(inbox.map((n) => n.title)).toContain('Wallet risk rose to high');
    // Unmonitored: no more re-screens.
    const patched = await call('PATCH', `/screening/wallets/${s.wallet_id}`, caller.headers, {
      monitored: false,
    });
    expect(patched.json().monitored).toBe(false);
    ctx.clock.advance(48 * 3600_000);
    await runDueTimers(ctx);
    await refresh();
    w = (await call('GET', `/screening/wallets/${s.wallet_id}`, caller.headers)).json();
    expect(w.screenings).toHaveLength(2);
  });

  it('lists wallets with the counters envelope, filters and q (address, label)', async () => {
    const c = await createTestClient(ctx);
    const empty = (await call('GET', '/screening/wallets', c.headers)).json();
    expect(empty).toEqual({ wallets: [], records: 0, page: 1, page_size: 20, total: 0, total_pages: 0 });
    await screen(evm('9999'), { label: 'Sanctioned Desk' }, c);
    await screen(evm('7777'), { label: 'Casino' }, c);
    const solana = await call('POST', '/screening/wallet', c.headers, {
      chain: 'solana',
      address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCF8888',
    });
    expect(solana.json().risk_level).toBe('high');
    const page = (await call('GET', '/screening/wallets?page_size=2', c.headers)).json();
    expect(page).toMatchObject({ records: 2, page: 1, page_size: 2, total: 3, total_pages: 2 });
    const byLabel = (await call('GET', '/screening/wallets?q=%20sanctioned%20', c.headers)).json();
    expect(byLabel.wallets.map((w: { label: string }) => w.label)).toEqual(['Sanctioned Desk']);
    const byAddr = (await call('GET', '/screening/wallets?q=KHN8vvw3', c.headers)).json();
    expect(byAddr.total).toBe(1);
    const sanctioned = (await call('GET', '/screening/wallets?sanctions_hit=true', c.headers)).json();
    expect(sanctioned.total).toBe(1);
    expect(
      (await call('GET', '/screening/wallets?risk_level=medium&chain=ethereum', c.headers)).json().total,
    ).toBe(1);
    expect((await call('GET', '/screening/wallets?chain=solana', c.headers)).json().total).toBe(1);
    expect((await call('GET', '/screening/wallets?q=%20%20', c.headers)).statusCode).toBe(422);
    expect((await call('GET', '/screening/wallets?page_size=201', c.headers)).statusCode).toBe(422);
  });

  it('another client gets 404 for screenings and wallets', async () => {
    const s = (await screen(evm('1357'))).json();
    const a = await call('GET', `/screening/wallet/${s.screening_id}`, other.headers);
    expect(a.statusCode).toBe(404);
    expect(a.json()).toEqual({ detail: 'Screening not found' });
    const b = await call('GET', `/screening/wallets/${s.wallet_id}`, other.headers);
    expect(b.json()).toEqual({ detail: 'Wallet not found' });
    expect((await call('POST', `/screening/wallets/${s.wallet_id}/rescreen`, other.headers)).statusCode).toBe(
      404,
    );
    expect(
      (await call('PATCH', `/screening/wallets/${s.wallet_id}`, other.headers, { label: 'x' })).statusCode,
    ).toBe(404);
    expect((await call('GET', '/screening/wallets', other.headers)).json().total).toBe(0);
  });
});

describe('signed notification route', () => {
  it('rejects unsigned, badly signed and stale notifications with 401', async () => {
    const body = JSON.stringify({
      event_id: 'e1',
      type: 'screening.result',
      reference: 'x',
      revision: 1,
      status: 'failed',
    });
    const post = (sig?: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/providers/screening/notifications',
        headers: { 'content-type': 'application/json', ...(sig ? { 'x-provider-signature': sig } : {}) },
        payload: body,
      });
    expect((await post()).statusCode).toBe(401);
    expect((await post('t=1,v1=00')).statusCode).toBe(401);
    const stale = signProviderPayload(
      ctx.deps.secrets.providerWebhookSecret,
      body,
      new Date(ctx.clock.now().getTime() - 301_000),
    );
    expect((await post(stale)).statusCode).toBe(401);
    const good = signProviderPayload(ctx.deps.secrets.providerWebhookSecret, body, ctx.clock.now());
    expect((await post(good)).json()).toEqual({ received: true, applied: false });
  });
});
