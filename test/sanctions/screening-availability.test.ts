/**
 * Wallet-ownership declarations and travel-rule transfers never skip sanctions screening silently
 * (review finding 5): with lists configured but not loaded, a declaration and an outbound transfer
 * answer 503 like monitoring, an inbound transfer is kept with `sanctions_screening: "unavailable"`;
 * a deployment without lists says `not_configured`; once loaded, hits carry their list version, alias
 * strength and the date-of-birth and country checks; a transfer's parties repaired by PATCH are
 * screened again on their new names, as at creation.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanctionsListState } from '../../src/db/schema/index';
import { rescreenUnavailableTransfers } from '../../src/modules/travel-rule/sanctions-rescreen.worker';
import { createTestApp, type TestContext } from '../helpers/app';
import { createKycWorld } from '../kyc/fixtures';
import { api, evm, runDueTimers, SANDBOX_VASP_IDS, transferBody } from '../travel-rule/fixtures';

const dir = mkdtempSync(path.join(tmpdir(), 'sanctions-avail-'));
const UN_FILE = path.join(dir, 'un.xml');

type World = Awaited<ReturnType<typeof createKycWorld>>;
let listed: TestContext;
let none: TestContext;
let wl: World;
let wn: World;
let unscreenedId: string;

beforeAll(async () => {
  copyFileSync(new URL('../fixtures/sanctions/un-consolidated.xml', import.meta.url).pathname, UN_FILE);
  listed = await createTestApp({
    env: { SVC_SANCTIONS_LISTS: 'un_sc', SVC_SANCTIONS_UN_SC_SOURCE: UN_FILE },
  });
  none = await createTestApp({ env: { SVC_SANCTIONS_LISTS: 'none' } });
  wl = await createKycWorld(listed);
  wn = await createKycWorld(none);
  for (const [ctx, w] of [
    [listed, wl],
    [none, wn],
  ] as const)
    await api(ctx)('PUT', '/travel-rule/settings', w.caller.headers, {
      originator_vasp: { name: 'Acme', country: 'DE' },
    });
}, 120_000);
afterAll(async () => {
  await listed?.close();
  await none?.close();
});

const YASIN = {
  type: 'natural',
  first_name: 'Abdul Rahman',
  last_name: 'Yasin',
  account_number: 'y1',
  date_of_birth: '1991-02-03',
};
const inbound = (ctx: TestContext, w: World, originator: Record<string, unknown>) =>
  api(ctx)('POST', '/sandbox/travel-rule/inbound', w.caller.headers, {
    asset: 'ETH',
    chain: 'ethereum',
    amount: '2',
    fiat_value: { amount: '5000.00', currency: 'EUR' },
    originator,
    beneficiary: { type: 'natural', first_name: 'Jane', last_name: 'Roe', account_number: 'b1' },
    beneficiary_address: evm('abe1'),
  });
const declare = async (ctx: TestContext, w: World, address: string, name: string) => {
  const call = api(ctx);
  const r = await call('POST', '/screening/wallet-ownership/requests', w.caller.headers, {
    user_id: w.userId,
    chain: 'ethereum',
    address,
    methods: ['self_declaration'],
  });
  return call('POST', `/screening/wallet-ownership/requests/${r.json().request_id}/proof`, w.caller.headers, {
    method: 'self_declaration',
    declarant_name: name,
  });
};

describe('lists configured but not loaded yet', () => {
  it('a declaration and an outbound transfer answer 503; an inbound transfer is kept, flagged unavailable', async () => {
    const d = await declare(listed, wl, evm('abe2'), 'Jane Roe');
    expect(d.statusCode).toBe(503);
    expect(d.json()).toEqual({ detail: 'Screening provider is unavailable' });
    const out = await api(listed)(
      'POST',
      '/travel-rule/transfers',
      wl.caller.headers,
      transferBody(evm('abe3')),
    );
    expect(out.statusCode).toBe(503);
    const t = await inbound(listed, wl, YASIN);
    expect(t.statusCode).toBe(201);
    expect(t.json()).toMatchObject({ sanctions_matches: null, sanctions_screening: 'unavailable' });
    unscreenedId = t.json().transfer_id;
    // The worker's pass leaves it while the lists still cannot answer.
    expect(await rescreenUnavailableTransfers(listed.deps)).toBe(0);
  });

  it('once loaded, hits carry the list version, alias strength and the identifier checks', async () => {
    expect(await listed.deps.providers.sanctions.load(listed.deps, 'un_sc')).toMatchObject({
      outcome: 'loaded',
    });
    const t = (
      await inbound(listed, wl, {
        ...YASIN,
        date_of_birth: '1960-04-10',
        address: { street: 'x', city: 'Paris', postal_code: '75001', country: 'FR' },
      })
    ).json();
    expect(t.sanctions_screening).toBe('screened');
    expect(t.sanctions_matches).toEqual([
      {
        list: 'UN Security Council Consolidated List',
        matched_name: 'ABDUL RAHMAN YASIN',
        match_score: 100,
        entry_id: '6909001',
        entry_name: 'ABDUL RAHMAN YASIN',
        screened_name: 'Abdul Rahman Yasin',
        list_version: expect.stringMatching(/^2026-11-05T00:00:09.554Z#[0-9a-f]{12}$/),
        alias_strength: 'primary',
        date_of_birth_check: 'agrees',
        country_check: 'differs',
      },
    ]);
    const d = await declare(listed, wl, evm('abe4'), 'Abdelrahman Yaseen');
    expect(d.json()).toMatchObject({
      status: 'verified',
      declarant_sanctions_screening: 'screened',
      declarant_sanctions_matches: [
        expect.objectContaining({
          entry_id: '6909001',
          alias_strength: 'strong',
          matched_name: 'Abdelrahman Yaseen',
        }),
      ],
    });
    const out = (
      await api(listed)('POST', '/travel-rule/transfers', wl.caller.headers, transferBody(evm('abe5')))
    ).json();
    expect(out).toMatchObject({ sanctions_matches: [], sanctions_screening: 'screened' });
    // The inbound transfer kept unscreened is screened by the worker's next pass, once.
    expect(await rescreenUnavailableTransfers(listed.deps)).toBe(1);
    expect(await rescreenUnavailableTransfers(listed.deps)).toBe(0);
    const kept = (
      await api(listed)('GET', `/travel-rule/transfers/${unscreenedId}`, wl.caller.headers)
    ).json();
    expect(kept).toMatchObject({
      sanctions_screening: 'screened',
      sanctions_matches: [expect.objectContaining({ entry_id: '6909001', date_of_birth_check: 'differs' })],
    });
  });
});

/** An outbound transfer to the sandbox VASP that asks for a repair, in needs_repair. */
async function inRepair(ctx: TestContext, w: World, suffix: string) {
  const t = (
    await api(ctx)(
      'POST',
      '/travel-rule/transfers',
      w.caller.headers,
      transferBody(evm(suffix), { beneficiary_vasp_id: SANDBOX_VASP_IDS.repair }),
    )
  ).json();
  ctx.clock.advanceSeconds(3);
  await runDueTimers(ctx);
  const r = (await api(ctx)('GET', `/travel-rule/transfers/${t.transfer_id}`, w.caller.headers)).json();
  expect(r.status).toBe('needs_repair');
  return r as {
    transfer_id: string;
    sanctions_matches: unknown[] | null;
    beneficiary: Record<string, unknown>;
  };
}
const repair = (ctx: TestContext, w: World, id: string, beneficiary: Record<string, unknown>) =>
  api(ctx)('PATCH', `/travel-rule/transfers/${id}`, w.caller.headers, { beneficiary });

describe('a transfer repaired by PATCH', () => {
  it('is screened again on the new names: a listed name is reported as at creation', async () => {
    const t = await inRepair(listed, wl, 'abe8');
    expect(t.sanctions_matches).toEqual([]);
    const listedName = { ...YASIN, account_number: t.beneficiary.account_number };
    const fixed = await repair(listed, wl, t.transfer_id, listedName);
    expect(fixed.statusCode).toBe(200);
    expect(fixed.json()).toMatchObject({ status: 'awaiting_counterparty', sanctions_screening: 'screened' });
    // The same parties at creation give the same hits.
    const created = (
      await api(listed)('POST', '/travel-rule/transfers', wl.caller.headers, {
        ...transferBody(evm('abe9')),
        beneficiary: listedName,
      })
    ).json();
    expect(created.sanctions_matches).toEqual([expect.objectContaining({ entry_id: '6909001' })]);
    expect(fixed.json().sanctions_matches).toEqual(created.sanctions_matches);
    // Stored, not only answered.
    const got = await api(listed)('GET', `/travel-rule/transfers/${t.transfer_id}`, wl.caller.headers);
    expect(got.json().sanctions_matches).toEqual(created.sanctions_matches);
  });

  it('a listed name repaired to a clean one: its hit goes', async () => {
    const t = (
      await api(listed)(
        'POST',
        '/travel-rule/transfers',
        wl.caller.headers,
        transferBody(evm('abec'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.repair, beneficiary: YASIN }),
      )
    ).json();
    expect(t.sanctions_matches).toEqual([expect.objectContaining({ entry_id: '6909001' })]);
    listed.clock.advanceSeconds(3);
    await runDueTimers(listed);
    const fixed = await repair(listed, wl, t.transfer_id, {
      type: 'natural',
      first_name: 'Jane',
      last_name: 'Roe',
      account_number: 'y1',
    });
    expect(fixed.json()).toMatchObject({
      status: 'awaiting_counterparty',
      sanctions_matches: [],
      sanctions_screening: 'screened',
    });
  });

  it('lists that cannot answer make the repair 503 and store nothing', async () => {
    const t = await inRepair(listed, wl, 'abea');
    // Not confirmed current within SVC_SANCTIONS_MAX_AGE_HOURS: the lists fail closed.
    const stale = new Date(listed.clock.now().getTime() - 49 * 3_600_000);
    await listed.deps.db.update(sanctionsListState).set({ lastSuccessAt: stale });
    const res = await repair(listed, wl, t.transfer_id, {
      ...YASIN,
      account_number: t.beneficiary.account_number,
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is unavailable' });
    const kept = (
      await api(listed)('GET', `/travel-rule/transfers/${t.transfer_id}`, wl.caller.headers)
    ).json();
    expect(kept).toMatchObject({ sanctions_matches: [], beneficiary: t.beneficiary });
  });
});

describe('a deployment without lists', () => {
  it('screens nothing and says so', async () => {
    const d = await declare(none, wn, evm('abe6'), 'Jane Roe');
    expect(d.json()).toMatchObject({
      status: 'verified',
      declarant_sanctions_matches: null,
      declarant_sanctions_screening: 'not_configured',
    });
    const out = (
      await api(none)('POST', '/travel-rule/transfers', wn.caller.headers, transferBody(evm('abe7')))
    ).json();
    expect(out).toMatchObject({ sanctions_matches: null, sanctions_screening: 'not_configured' });
    const t = (await inbound(none, wn, YASIN)).json();
    expect(t).toMatchObject({ sanctions_matches: null, sanctions_screening: 'not_configured' });
    const r = await inRepair(none, wn, 'abeb');
    const fixed = await repair(none, wn, r.transfer_id, {
      ...YASIN,
      account_number: r.beneficiary.account_number,
    });
    expect(fixed.json()).toMatchObject({ sanctions_matches: null, sanctions_screening: 'not_configured' });
  });
});
