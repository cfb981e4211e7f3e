/**
 * The Chainalysis adapter against the Chainalysis stand-in (written from the vendor's documentation):
 * the assessment mapped onto our risk fields (levels, categories, exposures with USD amounts as
 * decimal strings, cluster), the address form sent for every format we accept, which answers are
 * final (400 fails; 429 and outages are "ask again", the Sanctions API fallback catching a
 * designation meanwhile), the registration some accounts need, the sanctions-only provider (a clean
 * answer is unknown, never low), settings validation, metrics, and no key in the logs.
 */
import { Writable } from 'node:stream';
import { bech32 } from '@scure/base';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normalizeRisk } from '../../src/modules/screening/results.service';
import type { ChainalysisScreening } from '../../src/providers/screening/chainalysis/adapter';
import { loadChainalysisConfig } from '../../src/providers/screening/chainalysis/config';
import { createChainalysis } from '../../src/providers/screening/chainalysis/index';
import { CATEGORY_MAP, categoryOf, usd } from '../../src/providers/screening/chainalysis/mapping';
import { RISK_CATEGORIES, type ScreenOutcome } from '../../src/providers/screening/port';
import { eip55 } from '../../src/shared/chain-addresses';
import {
  type ChainalysisStandin,
  STANDIN_RISK_KEY,
  STANDIN_SANCTIONS_KEY,
  startChainalysisStandin,
} from '../standins/chainalysis/server';

let standin: ChainalysisStandin;
let metrics: Registry;
let logged: string;

function build(opts: { fallback?: boolean; sanctionsOnly?: boolean; timeoutMs?: number } = {}) {
  metrics = new Registry();
  logged = '';
  const problems: string[] = [];
  const env: Record<string, string> = {
    SVC_CHAINALYSIS_API_URL: standin.riskUrl,
    SVC_CHAINALYSIS_API_KEY: STANDIN_RISK_KEY,
    SVC_CHAINALYSIS_SANCTIONS_URL: standin.sanctionsUrl,
    SVC_CHAINALYSIS_TIMEOUT_MS: String(opts.timeoutMs ?? 2000),
    SVC_CHAINALYSIS_MAX_ATTEMPTS: '1',
  };
  if (opts.fallback !== false) env.SVC_CHAINALYSIS_SANCTIONS_API_KEY = STANDIN_SANCTIONS_KEY;
  const config = loadChainalysisConfig(
    env,
    problems,
    opts.sanctionsOnly ? 'chainalysis-sanctions' : 'chainalysis',
  );
  expect(problems).toEqual([]);
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });
  return createChainalysis(config, { metrics, log: pino({ level: 'debug' }, sink) });
}

const req = (chain: string, address: string) => ({
  screeningId: '00000000-0000-4000-8000-000000000001',
  walletId: '00000000-0000-4000-8000-000000000002',
  chain,
  address,
  asset: null,
});

const completed = (o: ScreenOutcome) => {
  if (o.status !== 'completed') throw new Error(`expected completed, got ${JSON.stringify(o)}`);
  return normalizeRisk(o.risk);
};

const ETH = '0xde709f2102306220921060314715629080e2fb77';
let adapter: ChainalysisScreening;

beforeAll(async () => {
  standin = await startChainalysisStandin();
});
afterAll(() => standin?.close());
beforeEach(() => {
  standin.control.reset();
  adapter = build();
});

describe('Chainalysis: the assessment as our risk fields', () => {
  it('maps a high-risk cluster with exposures: level, score in band, categories, exposures, cluster', async () => {
    standin.control.setEntity(ETH, {
      risk: 'High',
      riskReason: 'Exposure to mixing',
      cluster: { name: 'Some Mixer', category: 'mixing' },
      exposures: [
        { category: 'mixing', value: 3500.129, exposureType: 'indirect', direction: 'received' },
        { category: 'exchange', value: 6500, exposureType: 'direct', direction: 'received' },
        { category: 'gambling', value: 100.5, exposureType: 'direct', direction: 'sent' },
        { category: 'some new category', value: 1, exposureType: 'indirect', direction: 'both_directions' },
      ],
    });
    const r = completed(await adapter.screenWallet(req('ethereum', ETH)));
    expect(r).toMatchObject({ risk_level: 'high', risk_score: 72, sanctions_hit: false });
    expect(r.cluster).toEqual({ name: 'Some Mixer', category: 'mixer' });
    expect(r.categories).toEqual(['mixer', 'exchange', 'gambling', 'other']);
    expect(r.exposures).toEqual([
      {
        category: 'mixer',
        direction: 'incoming',
        exposure_type: 'indirect',
        percentage: 35,
        amount_usd: '3500.13',
      },
      {
        category: 'exchange',
        direction: 'incoming',
        exposure_type: 'direct',
        percentage: 64.99,
        amount_usd: '6500.00',
      },
      {
        category: 'gambling',
        direction: 'outgoing',
        exposure_type: 'direct',
        percentage: 99.01,
        amount_usd: '100.50',
      },
      {
        category: 'other',
        direction: 'incoming',
        exposure_type: 'indirect',
        percentage: 0.01,
        amount_usd: '1.00',
      },
      {
        category: 'other',
        direction: 'outgoing',
        exposure_type: 'indirect',
        percentage: 0.99,
        amount_usd: '1.00',
      },
    ]);
    // Our words only: no vendor name or raw category in the reasons.
    expect(JSON.stringify(r.risk_reasons)).not.toMatch(/chainalysis|mixing|Exposure to mixing/i);
    expect(r.risk_reasons).toEqual([
      'The address belongs to a cluster of category mixer',
      'Exposure to mixer, gambling',
    ]);
  });

  it('each rating lands in its band; a sanctions identification is always severe', async () => {
    for (const [risk, level, score] of [
      ['Low', 'low', 15],
      ['Medium', 'medium', 45],
      ['High', 'high', 72],
      ['Severe', 'severe', 92],
    ] as const) {
      const a = `0x${risk
        .toLowerCase()
        .padEnd(8, '0')
        .replace(/[^0-9a-f]/g, 'a')}${'1'.repeat(32)}`;
      standin.control.setEntity(a, { risk, cluster: { name: 'X', category: 'exchange' } });
      expect(completed(await adapter.screenWallet(req('ethereum', a)))).toMatchObject({
        risk_level: level,
        risk_score: score,
      });
    }
    const sanctioned = `0x${'5'.repeat(40)}`;
    standin.control.setEntity(sanctioned, {
      risk: 'Low',
      addressIdentifications: [{ name: 'SANCTIONS: OFAC SDN X', category: 'sanctions' }],
    });
    expect(completed(await adapter.screenWallet(req('ethereum', sanctioned)))).toMatchObject({
      risk_level: 'severe',
      risk_score: 92,
      sanctions_hit: true,
      categories: ['sanctions'],
    });
  });

  it('a Low rating with nothing behind it is no data: unknown, score 0, never low', async () => {
    const r = completed(await adapter.screenWallet(req('ethereum', `0x${'7'.repeat(40)}`)));
    expect(r).toMatchObject({ risk_level: 'unknown', risk_score: 0, sanctions_hit: false, categories: [] });
  });

  it('a Severe or High rating with nothing behind it keeps the vendor level (review B1)', async () => {
    const severe = `0x${'9'.repeat(40)}`;
    standin.control.setEntity(severe, { risk: 'Severe', riskReason: 'Organisation setting', exposures: [] });
    expect(completed(await adapter.screenWallet(req('ethereum', severe)))).toMatchObject({
      risk_level: 'severe',
      risk_score: 92,
      sanctions_hit: false,
      categories: [],
      risk_reasons: ['The provider rates the address severe risk'],
    });
    // An exposure without a value is still an exposure: its category is kept, the amount unknown.
    const high = `0x${'a'.repeat(40)}`;
    standin.control.setEntity(high, {
      risk: 'High',
      exposures: [
        { category: 'darknet market', value: null, exposureType: 'direct', direction: 'sent' },
        { category: 'exchange', exposureType: 'direct', direction: 'sent' },
        { category: 'gambling', value: 10, exposureType: 'indirect', direction: 'sent' },
      ],
    });
    const r = completed(await adapter.screenWallet(req('ethereum', high)));
    expect(r).toMatchObject({
      risk_level: 'high',
      risk_score: 72,
      categories: ['darknet_market', 'exchange', 'gambling'],
    });
    expect(r.exposures).toEqual([
      {
        category: 'darknet_market',
        direction: 'outgoing',
        exposure_type: 'direct',
        percentage: 0,
        amount_usd: null,
      },
      {
        category: 'exchange',
        direction: 'outgoing',
        exposure_type: 'direct',
        percentage: 0,
        amount_usd: null,
      },
      {
        category: 'gambling',
        direction: 'outgoing',
        exposure_type: 'indirect',
        percentage: 100,
        amount_usd: '10.00',
      },
    ]);
  });

  it('a sanctioned jurisdiction is not a designation: at least high, category other, no sanctions hit (review 3)', async () => {
    const inJurisdiction = `0x${'b'.repeat(40)}`;
    standin.control.setEntity(inJurisdiction, {
      risk: 'Medium',
      cluster: { name: 'Local Exchange', category: 'sanctioned jurisdiction' },
    });
    expect(completed(await adapter.screenWallet(req('ethereum', inJurisdiction)))).toMatchObject({
      risk_level: 'high',
      risk_score: 72,
      sanctions_hit: false,
      categories: ['other'],
      cluster: { name: 'Local Exchange', category: 'other' },
      risk_reasons: ['The address is linked to a sanctioned jurisdiction'],
    });
    // A Severe rating stays severe; an identification does the same as the cluster.
    const severe = `0x${'c'.repeat(40)}`;
    standin.control.setEntity(severe, {
      risk: 'Severe',
      addressIdentifications: [{ name: 'X', category: 'Sanctioned Jurisdiction' }],
    });
    expect(completed(await adapter.screenWallet(req('ethereum', severe)))).toMatchObject({
      risk_level: 'severe',
      risk_score: 92,
      sanctions_hit: false,
    });
  });

  it('every Chainalysis category in the table maps to one of ours; unknown names are other', () => {
    for (const ours of Object.values(CATEGORY_MAP)) expect(RISK_CATEGORIES).toContain(ours);
    expect(categoryOf('No KYC Exchange')).toBe('unlicensed_exchange');
    expect(categoryOf('high-risk_exchange')).toBe('unlicensed_exchange');
    expect(categoryOf('Brand New Thing')).toBe('other');
    expect(categoryOf('')).toBeNull();
    expect([usd('424895.68594'), usd(0.005), usd('-1'), usd('1e5')]).toEqual([
      '424895.69',
      '0.01',
      null,
      null,
    ]);
  });
});

describe('Chainalysis: the address sent for every format we accept', () => {
  const ltc = bech32.encode('ltc', [0, ...bech32.toWords(new Uint8Array(20).fill(7))]);
  const cases: [string, string, string][] = [
    [
      'ethereum',
      eip55('0x52908400098527886e0f7030069857d2e4169ee7'),
      '0x52908400098527886e0f7030069857d2e4169ee7',
    ],
    ['polygon', '0xDE709F2102306220921060314715629080E2FB77', ETH],
    ['base', ETH, ETH],
    ['bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    [
      'bitcoin',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
    ],
    ['bitcoin', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'],
    ['bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['litecoin', ltc.toUpperCase(), ltc],
    ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['solana', 'So11111111111111111111111111111111111111112', 'So11111111111111111111111111111111111111112'],
  ];
  it.each(cases)('%s %s is sent as %s (risk and sanctions APIs)', async (chain, given, sent) => {
    standin.control.setDown('risk', true);
    await adapter.screenWallet(req(chain, given));
    // Not listed in lowercase, an EVM address with letters is asked again in its EIP-55 spelling.
    const again =
      sent.startsWith('0x') && eip55(sent) !== sent ? [['sanctions', `/address/${eip55(sent)}`]] : [];
    expect(standin.control.requests.map((r) => [r.api, r.path])).toEqual([
      ['risk', `/v2/entities/${sent}`],
      ['sanctions', `/address/${sent}`],
      ...again,
    ]);
    expect(standin.control.problems).toEqual([]);
  });
});

describe('Chainalysis: which answers are final', () => {
  it('429 with Retry-After is "ask again" (rate_limited, the wait kept); the fallback is asked meanwhile (review 4)', async () => {
    standin.control.failNext({ api: 'risk', status: 429, count: 2, retryAfter: '120' });
    const o = await adapter.screenWallet(req('ethereum', ETH));
    expect(o).toEqual({ status: 'pending', retry: { reason: 'rate_limited', afterMs: 120_000 } });
    expect(standin.control.requests.map((r) => r.api)).toEqual(['risk', 'sanctions']);
    // A designation cannot wait out a quota: the fallback's listing completes the screening.
    standin.control.sanction(ETH);
    expect(completed(await adapter.screenWallet(req('ethereum', ETH)))).toMatchObject({
      risk_level: 'severe',
      sanctions_hit: true,
    });
  });

  it('5xx: the Sanctions API is asked meanwhile; a designation there completes as severe', async () => {
    standin.control.sanction(ETH);
    standin.control.failNext({ api: 'risk', status: 500, count: 1 });
    const r = completed(await adapter.screenWallet(req('ethereum', ETH)));
    expect(r).toMatchObject({ risk_level: 'severe', sanctions_hit: true, categories: ['sanctions'] });
    expect(r.risk_reasons).toEqual(['The address is on a sanctions list']);
  });

  it('5xx with a clean fallback is still "ask again" (unavailable): a clean sanctions check is not an assessment', async () => {
    standin.control.failNext({ api: 'risk', status: 502, count: 1 });
    expect(await adapter.screenWallet(req('ethereum', ETH))).toEqual({
      status: 'pending',
      retry: { reason: 'unavailable', afterMs: undefined },
    });
  });

  it('both down, a timeout, a malformed answer, or a refused key: "ask again" (unavailable)', async () => {
    standin.control.setDown('risk', true);
    standin.control.setDown('sanctions', true);
    expect((await adapter.screenWallet(req('ethereum', ETH))) as unknown).toMatchObject({
      status: 'pending',
      retry: { reason: 'unavailable' },
    });
    standin.control.reset();
    const slow = build({ timeoutMs: 100, fallback: false });
    standin.control.setDelayMs('risk', 400);
    expect(await slow.screenWallet(req('ethereum', ETH))).toMatchObject({ retry: { reason: 'unavailable' } });
    standin.control.reset();
    standin.control.failNext({ api: 'risk', status: 200, count: 1, body: '{"risk": "Catastrophic"' });
    expect(await adapter.screenWallet(req('ethereum', ETH))).toMatchObject({
      retry: { reason: 'unavailable' },
    });
    standin.control.failNext({ api: 'risk', status: 200, count: 1, body: '{"risk": "Catastrophic"}' });
    expect(await adapter.screenWallet(req('ethereum', ETH))).toMatchObject({
      retry: { reason: 'unavailable' },
    });
    standin.control.failNext({ api: 'risk', status: 403, count: 1 });
    expect(await adapter.screenWallet(req('ethereum', ETH))).toMatchObject({
      retry: { reason: 'unavailable' },
    });
  });

  it('an assessment whose status is not COMPLETE is not final: pending, not_ready (review 1)', async () => {
    standin.control.setEntity(ETH, { risk: 'Severe', cluster: { name: 'Mixer', category: 'mixing' } });
    standin.control.incompleteNext(1, 'PENDING');
    expect(await adapter.screenWallet(req('ethereum', ETH))).toMatchObject({
      status: 'pending',
      retry: { reason: 'not_ready' },
    });
    expect(completed(await adapter.screenWallet(req('ethereum', ETH)))).toMatchObject({
      risk_level: 'severe',
    });
    // A lower-case complete is final too.
    standin.control.incompleteNext(1, 'complete');
    expect(await adapter.screenWallet(req('ethereum', ETH))).toMatchObject({ status: 'completed' });
  });

  it('a refused Entity API token (403) and a Sanctions API throttle (403) are outages for that call (review 5)', async () => {
    const withFallback = build();
    const problems: string[] = [];
    const wrong = createChainalysis(
      loadChainalysisConfig(
        {
          SVC_CHAINALYSIS_API_URL: standin.riskUrl,
          SVC_CHAINALYSIS_API_KEY: 'not-the-key',
          SVC_CHAINALYSIS_MAX_ATTEMPTS: '1',
        },
        problems,
      ),
      { metrics: new Registry(), log: pino({ level: 'silent' }) },
    );
    expect(await wrong.screenWallet(req('ethereum', ETH))).toEqual({
      status: 'pending',
      retry: { reason: 'unavailable', afterMs: undefined },
    });
    expect(standin.control.requests.map((r) => r.status)).toEqual([403]);
    // The fallback throttled while the main API is down: not answered, still "ask again".
    standin.control.reset();
    standin.control.sanction(ETH);
    standin.control.setDown('risk', true);
    standin.control.failNext({ api: 'sanctions', status: 403, count: 1 });
    expect(await withFallback.screenWallet(req('ethereum', ETH))).toMatchObject({
      status: 'pending',
      retry: { reason: 'unavailable' },
    });
    // Sanctions only: a 403 is an outage for that call, never final.
    const only = build({ sanctionsOnly: true });
    standin.control.failNext({ api: 'sanctions', status: 403, count: 1 });
    expect(await only.screenWallet(req('ethereum', ETH))).toMatchObject({
      status: 'pending',
      retry: { reason: 'unavailable' },
    });
    expect(completed(await only.screenWallet(req('ethereum', ETH)))).toMatchObject({ sanctions_hit: true });
  });

  it('a 400 (the vendor refuses the address) fails: Screening provider error', async () => {
    standin.control.failNext({ api: 'risk', status: 400, count: 1 });
    expect(await adapter.screenWallet(req('ethereum', ETH))).toEqual({
      status: 'failed',
      reason: 'Screening provider error',
    });
  });

  it('an account that must register first: POST /v2/entities, then the GET', async () => {
    standin.control.requireRegistration(true);
    standin.control.setEntity(ETH, { risk: 'Medium', cluster: { name: 'Casino', category: 'gambling' } });
    expect(completed(await adapter.screenWallet(req('ethereum', ETH)))).toMatchObject({
      risk_level: 'medium',
      categories: ['gambling'],
    });
    expect(standin.control.requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', `/v2/entities/${ETH}`, 404],
      ['POST', '/v2/entities', 201],
      ['GET', `/v2/entities/${ETH}`, 200],
    ]);
    expect(standin.control.requests[1]!.body).toEqual({ address: ETH });
  });

  it('a 404 right after the registration is "ask again" (unavailable, counted), never a final unknown (review 2)', async () => {
    standin.control.requireRegistration(true);
    standin.control.registrationLag(1);
    standin.control.setEntity(ETH, { risk: 'High', cluster: { name: 'Mixer', category: 'mixing' } });
    expect(await adapter.screenWallet(req('ethereum', ETH))).toEqual({
      status: 'pending',
      retry: { reason: 'unavailable', afterMs: undefined },
    });
    // The fallback is asked meanwhile (a designation cannot wait); the next ask gets the assessment.
    expect(standin.control.requests.map((r) => [r.api, r.method, r.status])).toEqual([
      ['risk', 'GET', 404],
      ['risk', 'POST', 201],
      ['risk', 'GET', 404],
      ['sanctions', 'GET', 200],
    ]);
    expect(completed(await adapter.screenWallet(req('ethereum', ETH)))).toMatchObject({ risk_level: 'high' });
  });

  it('counts calls and failures in svc_upstream_* and never logs a key', async () => {
    standin.control.failNext({ api: 'risk', status: 503, count: 1 });
    await adapter.screenWallet(req('ethereum', ETH));
    const text = await metrics.metrics();
    expect(text).toMatch(
      /svc_upstream_errors_total\{upstream="chainalysis",operation="entities.get",kind="server"\} 1/,
    );
    expect(text).toMatch(/svc_upstream_request_duration_seconds_count\{upstream="chainalysis_sanctions"/);
    expect(logged).toContain('chainalysis risk assessment not obtained');
    expect(logged).not.toContain(STANDIN_RISK_KEY);
    expect(logged).not.toContain(STANDIN_SANCTIONS_KEY);
  });

  it('no chain observer: observesDeposits is false and watchDeposit refuses; polled with the configured limits', async () => {
    expect(adapter.observesDeposits).toBe(false);
    expect(adapter.polled).toEqual({
      maxUnavailableAttempts: 6,
      backoffSeconds: [30, 60, 300, 900, 1800],
      maxRetryAfterSeconds: 3600,
      maxPendingSeconds: 86400,
    });
    await expect(adapter.watchDeposit()).rejects.toThrow(/does not observe deposits/);
    expect(adapter.verifyNotification()).toBeNull();
  });
});

describe('Chainalysis: EVM letter case at the Sanctions API', () => {
  // No document says whether the list matches EVM addresses whatever their case: both worlds.
  const MIXED = '0x52908400098527886e0f7030069857d2e4169ee7';
  const CHECKSUMMED = eip55(MIXED);
  const paths = () => standin.control.requests.filter((r) => r.api === 'sanctions').map((r) => r.path);

  it('a list that matches any case: the lowercase query is a hit, asked once', async () => {
    standin.control.sanction(CHECKSUMMED);
    standin.control.setDown('risk', true);
    expect(completed(await adapter.screenWallet(req('ethereum', MIXED)))).toMatchObject({
      sanctions_hit: true,
    });
    expect(paths()).toEqual([`/address/${MIXED}`]);
  });

  it('a list that matches the checksummed spelling only: the second ask (EIP-55) is a hit, fallback and sanctions-only', async () => {
    standin.control.sanction(CHECKSUMMED, 'Exact Case Entity', { exactCase: true });
    standin.control.setDown('risk', true);
    expect(completed(await adapter.screenWallet(req('ethereum', MIXED)))).toMatchObject({
      risk_level: 'severe',
      sanctions_hit: true,
    });
    expect(paths()).toEqual([`/address/${MIXED}`, `/address/${CHECKSUMMED}`]);
    const only = build({ sanctionsOnly: true });
    expect(
      completed(await only.screenWallet(req('polygon', MIXED.toUpperCase().replace('0X', '0x')))),
    ).toMatchObject({
      sanctions_hit: true,
    });
    // The second ask is its own operation in the metrics (the Sanctions API quota counts both).
    const text = await metrics.metrics();
    expect(text).toMatch(
      /svc_upstream_request_duration_seconds_count\{upstream="chainalysis_sanctions",operation="sanctions.address_eip55",outcome="[^"]+"\} 1/,
    );
  });

  it('a lowercase listing is matched on the first ask; an address without letters and non-EVM ones are asked once', async () => {
    standin.control.sanction(MIXED, 'Lowercase Entity', { exactCase: true });
    const only = build({ sanctionsOnly: true });
    expect(completed(await only.screenWallet(req('ethereum', CHECKSUMMED)))).toMatchObject({
      sanctions_hit: true,
    });
    expect(paths()).toEqual([`/address/${MIXED}`]);
    const digits = `0x${'1234567890'.repeat(4)}`;
    expect(completed(await only.screenWallet(req('ethereum', digits)))).toMatchObject({
      sanctions_hit: false,
    });
    expect(
      completed(await only.screenWallet(req('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'))),
    ).toMatchObject({
      sanctions_hit: false,
    });
    expect(paths()).toEqual([
      `/address/${MIXED}`,
      `/address/${digits}`,
      '/address/TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    ]);
  });

  it('a second ask that does not answer concludes nothing: fallback not answered, sanctions-only asks again', async () => {
    standin.control.setDown('risk', true);
    standin.control.failNext({ api: 'sanctions', status: 403, count: 1, after: 1 });
    expect(await adapter.screenWallet(req('ethereum', MIXED))).toEqual({
      status: 'pending',
      retry: { reason: 'unavailable', afterMs: undefined },
    });
    const only = build({ sanctionsOnly: true });
    standin.control.failNext({ api: 'sanctions', status: 429, count: 1, after: 1, retryAfter: '9' });
    expect(await only.screenWallet(req('ethereum', MIXED))).toEqual({
      status: 'pending',
      retry: { reason: 'rate_limited', afterMs: 9000 },
    });
  });
});

describe('Chainalysis sanctions only (chainalysis-sanctions)', () => {
  it('listed: severe sanctions hit; not listed: unknown, score 0, saying only sanctions were checked', async () => {
    const only = build({ sanctionsOnly: true });
    standin.control.sanction(ETH);
    expect(completed(await only.screenWallet(req('ethereum', ETH)))).toMatchObject({
      risk_level: 'severe',
      risk_score: 100,
      sanctions_hit: true,
      categories: ['sanctions'],
    });
    const clean = completed(await only.screenWallet(req('ethereum', `0x${'8'.repeat(40)}`)));
    expect(clean).toMatchObject({ risk_level: 'unknown', risk_score: 0, sanctions_hit: false });
    expect(clean.risk_reasons[0]).toMatch(/^Only sanctions lists were checked/);
    expect(standin.control.requests.every((r) => r.api === 'sanctions')).toBe(true);
    standin.control.failNext({ api: 'sanctions', status: 429, count: 1, retryAfter: '7' });
    expect(await only.screenWallet(req('ethereum', ETH))).toEqual({
      status: 'pending',
      retry: { reason: 'rate_limited', afterMs: 7000 },
    });
  });
});

describe('Chainalysis settings', () => {
  it('requires the keys, https (http only on this machine) and a valid backoff list', () => {
    const problems: string[] = [];
    loadChainalysisConfig(
      {
        SVC_CHAINALYSIS_API_URL: 'http://chainalysis.example.com/api/risk',
        SVC_CHAINALYSIS_RETRY_BACKOFF_SECONDS: '30,x',
      },
      problems,
    );
    expect(problems).toEqual([
      'SVC_CHAINALYSIS_API_KEY is required when SVC_SCREENING_PROVIDER=chainalysis',
      'SVC_CHAINALYSIS_API_URL must be an https URL (http only for localhost)',
      'SVC_CHAINALYSIS_RETRY_BACKOFF_SECONDS must be a comma-separated list of whole seconds (1-86400)',
    ]);
    const only: string[] = [];
    const c = loadChainalysisConfig({}, only, 'chainalysis-sanctions');
    expect(only).toEqual([
      'SVC_CHAINALYSIS_SANCTIONS_API_KEY is required when SVC_SCREENING_PROVIDER=chainalysis-sanctions',
    ]);
    expect(c.risk).toBeNull();
    const defaults = loadChainalysisConfig({ SVC_CHAINALYSIS_API_KEY: 'k' }, []);
    expect(defaults.risk!.baseUrl).toBe('https://api.chainalysis.com/api/risk');
    expect(defaults.sanctions).toBeNull();
  });
});
