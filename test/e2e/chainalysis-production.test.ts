/**
 * End to end in production mode on PostgreSQL (SVC_ENVIRONMENT=production,
 * SVC_SCREENING_PROVIDER=chainalysis against the Chainalysis stand-in, the Sanctions API as fallback),
 * through the public API: a clean address completes low; a high-risk counterparty wallet makes the
 * monitoring policy's wallet rule decline the transaction; a sanctioned address is caught by the
 * fallback while the main API is down; a 429 leaves the screening pending and the retry timer
 * completes it after the Retry-After (the fallback asked meanwhile); 429s past the maximum pending age
 * fail with `Screening provider error`; an unfinished assessment (status not COMPLETE) is completed by
 * the retry timer; an outage that outlasts the limit fails with `Screening provider
 * error`; a monitored wallet is re-screened on our schedule through the adapter; ownership offers no
 * Satoshi test with this provider (400). Runs on the PostgreSQL pass only.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { createKycWorld } from '../kyc/fixtures';
import { putPolicy, rule, txBody } from '../monitoring/fixtures';
import { api, eventsOf, runDueTimers } from '../screening/fixtures';
import {
  type ChainalysisStandin,
  STANDIN_RISK_KEY,
  STANDIN_SANCTIONS_KEY,
  startChainalysisStandin,
} from '../standins/chainalysis/server';

const onPostgres = process.env.TEST_ENGINE === 'postgres';

let seq = 0;
/** A fresh lowercase EVM address (what the adapter sends to Chainalysis). */
const addr = (tag: string) => `0x${tag.padEnd(8, '0')}${(++seq).toString(16).padStart(32, '0')}`;

describe.skipIf(!onPostgres)('Chainalysis in production, end to end', () => {
  let ctx: TestContext;
  let standin: ChainalysisStandin;
  let c: TestCaller;
  let user: string;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    standin = await startChainalysisStandin();
    ctx = await createTestApp({
      env: {
        ...PRODUCTION_ENV,
        SVC_SCREENING_PROVIDER: 'chainalysis',
        SVC_CHAINALYSIS_API_URL: standin.riskUrl,
        SVC_CHAINALYSIS_API_KEY: STANDIN_RISK_KEY,
        SVC_CHAINALYSIS_SANCTIONS_URL: standin.sanctionsUrl,
        SVC_CHAINALYSIS_SANCTIONS_API_KEY: STANDIN_SANCTIONS_KEY,
        SVC_CHAINALYSIS_MAX_ATTEMPTS: '1',
        SVC_SCREENING_SYNC_TIMEOUT_MS: '300',
        SVC_CHAINALYSIS_MAX_UNAVAILABLE_ATTEMPTS: '3',
        SVC_CHAINALYSIS_RETRY_BACKOFF_SECONDS: '30,60',
        SVC_CHAINALYSIS_MAX_PENDING_SECONDS: '600',
        // Breaker kept closed for the test's few deliberate outages.
        SVC_CHAINALYSIS_BREAKER_FAILURES: '100',
      },
    });
    const world = await createKycWorld(ctx, { productionAccess: true });
    c = world.caller;
    user = world.userId;
    call = api(ctx);
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
    await standin?.close();
  });
  beforeEach(() => standin.control.reset());

  const screen = async (address: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/screening/wallet', c.headers, { chain: 'ethereum', address, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Record<string, unknown>;
  };
  const get = async (id: unknown) =>
    (await call('GET', `/screening/wallet/${id}`, c.headers)).json() as Record<string, unknown>;

  it('a clean address completes low, with its cluster and exposures, in our words only', async () => {
    const a = addr('c1ea4');
    standin.control.setEntity(a, {
      risk: 'Low',
      cluster: { name: 'Big Exchange', category: 'exchange' },
      exposures: [{ category: 'exchange', value: 1250.5, exposureType: 'direct', direction: 'received' }],
    });
    const s = await screen(a);
    expect(s).toMatchObject({
      status: 'completed',
      risk_level: 'low',
      risk_score: 15,
      sanctions_hit: false,
      categories: ['exchange'],
      cluster: { name: 'Big Exchange', category: 'exchange' },
      exposures: [
        {
          category: 'exchange',
          direction: 'incoming',
          exposure_type: 'direct',
          percentage: 100,
          amount_usd: '1250.50',
        },
      ],
    });
    expect(JSON.stringify(s)).not.toMatch(/chainalysis/i);
    expect(standin.control.problems).toEqual([]);
  });

  it("a high-risk counterparty wallet is declined by the monitoring policy's wallet rule", async () => {
    const a = addr('b1ac4');
    standin.control.setEntity(a, {
      risk: 'High',
      cluster: { name: 'Darknet Shop', category: 'darknet market' },
    });
    await putPolicy(ctx, c, {
      sanctions: { enabled: false, action: 'review' },
      rules: [rule('wallet', 'counterparty_wallet_risk', { min_risk_level: 'high' }, { action: 'decline' })],
    });
    const res = await call(
      'POST',
      '/monitoring/transactions',
      c.headers,
      txBody({ counterparty: { name: 'Shop', wallet: { chain: 'ethereum', address: a } } }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ decision: 'DECLINED' });
    expect(res.json().rule_hits.map((h: { rule_id: string }) => h.rule_id)).toEqual(['wallet']);
  });

  it('a sanctioned address is caught by the Sanctions API fallback while the main API is down', async () => {
    const a = addr('5a4c7');
    standin.control.sanction(a);
    standin.control.setDown('risk', true);
    const s = await screen(a);
    expect(s).toMatchObject({
      status: 'completed',
      risk_level: 'severe',
      risk_score: 100,
      sanctions_hit: true,
      categories: ['sanctions'],
      risk_reasons: ['The address is on a sanctions list'],
    });
    const [event] = (await eventsOf(ctx, c.clientId, 'screening.wallet.completed')).filter(
      (e) => e.screening_id === s.screening_id,
    );
    expect(event).toMatchObject({ status: 'completed', risk_level: 'severe', sanctions_hit: true });
  });

  it('a 429 leaves the screening pending; the retry timer completes it after the Retry-After', async () => {
    const a = addr('4290');
    standin.control.setEntity(a, { risk: 'Medium', cluster: { name: 'Casino', category: 'gambling' } });
    standin.control.failNext({ api: 'risk', status: 429, count: 1, retryAfter: '120' });
    const s = await screen(a);
    expect(s).toMatchObject({ status: 'pending', risk_level: null });
    await runJobs(ctx);
    expect(await get(s.screening_id)).toMatchObject({ status: 'pending' });
    ctx.clock.advanceSeconds(121);
    await runJobs(ctx);
    expect(await get(s.screening_id)).toMatchObject({
      status: 'completed',
      risk_level: 'medium',
      categories: ['gambling'],
    });
    expect(standin.control.requests.filter((r) => r.api === 'risk').map((r) => r.status)).toEqual([429, 200]);
    // The fallback was asked during the 429 (a designation cannot wait out a quota); clean, so not final.
    expect(standin.control.requests.filter((r) => r.api === 'sanctions')).toHaveLength(1);
  });

  it('429s past SVC_CHAINALYSIS_MAX_PENDING_SECONDS fail the screening with Screening provider error', async () => {
    const a = addr('4291');
    standin.control.failNext({ api: 'risk', status: 429, count: 100, retryAfter: '250' });
    const s = await screen(a);
    expect(s).toMatchObject({ status: 'pending' });
    for (const step of [251, 251]) {
      ctx.clock.advanceSeconds(step);
      await runJobs(ctx);
      expect(await get(s.screening_id)).toMatchObject({ status: 'pending' });
    }
    // The last retry is set at the deadline (600 s after creation), not after a full Retry-After.
    ctx.clock.advanceSeconds(99);
    await runJobs(ctx);
    expect(await get(s.screening_id)).toMatchObject({
      status: 'failed',
      failure_reason: 'Screening provider error',
      risk_level: null,
    });
    expect(standin.control.requests.filter((r) => r.api === 'risk').map((r) => r.status)).toEqual([
      429, 429, 429, 429,
    ]);
  });

  it('an unfinished assessment (status not COMPLETE) stays pending; the retry timer completes it', async () => {
    const a = addr('4e4d');
    standin.control.setEntity(a, { risk: 'High', cluster: { name: 'Mixer', category: 'mixing' } });
    standin.control.incompleteNext(1, 'PENDING');
    const s = await screen(a);
    expect(s).toMatchObject({ status: 'pending', risk_level: null });
    ctx.clock.advanceSeconds(31);
    await runJobs(ctx);
    expect(await get(s.screening_id)).toMatchObject({ status: 'completed', risk_level: 'high' });
  });

  it('an answer slower than the sync timeout is pending at first, then applied when it arrives', async () => {
    const a = addr('51e0');
    standin.control.setEntity(a, { risk: 'High', cluster: { name: 'Mixer', category: 'mixing' } });
    standin.control.setDelayMs('risk', 800);
    const s = await screen(a);
    expect(s).toMatchObject({ status: 'pending' });
    await vi.waitFor(async () => expect(await get(s.screening_id)).toMatchObject({ status: 'completed' }), {
      timeout: 5000,
      interval: 100,
    });
    expect(await get(s.screening_id)).toMatchObject({ risk_level: 'high', categories: ['mixer'] });
    // The retry timer was cancelled with the completion: nothing asks Chainalysis again.
    standin.control.setDelayMs('risk', 0);
    ctx.clock.advanceSeconds(60);
    await runJobs(ctx);
    expect(standin.control.requests.filter((r) => r.api === 'risk')).toHaveLength(1);
  });

  it('an outage past the limit fails the screening with Screening provider error', async () => {
    const a = addr('dead');
    standin.control.setDown('risk', true);
    const s = await screen(a);
    expect(s).toMatchObject({ status: 'pending' });
    ctx.clock.advanceSeconds(31);
    await runJobs(ctx);
    expect(await get(s.screening_id)).toMatchObject({ status: 'pending' });
    ctx.clock.advanceSeconds(61);
    await runJobs(ctx);
    expect(await get(s.screening_id)).toMatchObject({
      status: 'failed',
      failure_reason: 'Screening provider error',
      risk_level: null,
    });
    expect(standin.control.requests.filter((r) => r.api === 'risk')).toHaveLength(3);
  });

  it('a monitored wallet is re-screened on our schedule through the adapter', async () => {
    const a = addr('7e5c');
    standin.control.setEntity(a, { risk: 'Low', cluster: { name: 'Exchange', category: 'exchange' } });
    const first = await screen(a, { monitor: true });
    expect(first).toMatchObject({ status: 'completed', risk_level: 'low' });
    standin.control.setEntity(a, {
      risk: 'Severe',
      cluster: { name: 'Ransom Gang', category: 'ransomware' },
    });
    ctx.clock.advanceSeconds(ctx.config.screeningRescreenHours * 3600 + 1);
    await runDueTimers(ctx);
    // A day later: a fresh token for the same client.
    c = await createTestClient(ctx, { clientId: c.clientId, productionAccess: true });
    const wallet = (await call('GET', `/screening/wallets/${first.wallet_id}`, c.headers)).json();
    expect(wallet).toMatchObject({ risk_level: 'severe', monitored: true });
    expect(wallet.screenings[0]).toMatchObject({
      trigger: 'monitoring',
      status: 'completed',
      risk_level: 'severe',
      categories: ['ransomware'],
    });
  });

  it('ownership: no Satoshi test with this provider (default methods leave it out; asking is 400)', async () => {
    const ok = await call('POST', '/screening/wallet-ownership/requests', c.headers, {
      chain: 'ethereum',
      address: addr('0b0e'),
      user_id: user,
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().methods).toEqual(['message_signing']);
    const btc = await call('POST', '/screening/wallet-ownership/requests', c.headers, {
      chain: 'bitcoin',
      address: '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2',
      user_id: user,
    });
    expect(btc.json().methods).toEqual(['self_declaration']);
    const refused = await call('POST', '/screening/wallet-ownership/requests', c.headers, {
      chain: 'ethereum',
      address: addr('0b0f'),
      user_id: user,
      methods: ['satoshi_test'],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ detail: "Method 'satoshi_test' is not supported for chain 'ethereum'" });
  });
});
