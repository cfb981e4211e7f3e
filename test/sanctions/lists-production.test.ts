/**
 * The official lists in production mode, end to end through the public API: each list read from its
 * configured file by the scheduled job, a versioned snapshot in the database, monitoring's sanctions
 * rule screening against it (with the client's threshold), a new version removing and adding entries,
 * a truncated or miscounted file keeping the last good version (readiness details, staff status,
 * metrics), and a second node screening the same version without loading anything.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConfigError, loadConfig } from '../../src/config';
import { sanctionsListEntries, sanctionsListSnapshots } from '../../src/db/schema/sanctions-lists';
import { loadSanctionsListJob, scheduleSanctionsLoads } from '../../src/providers/sanctions/sanctions.module';
import { readListStates } from '../../src/providers/sanctions/store';
import { newId } from '../../src/shared/ids';
import { createTestApp, PRODUCTION_ENV, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { api, putPolicy, txBody } from '../monitoring/fixtures';
import { staffHeaders } from '../org/fixtures';

const FIXTURES = new URL('../fixtures/sanctions/', import.meta.url).pathname;
const dir = mkdtempSync(path.join(tmpdir(), 'sanctions-'));
const file = (name: string) => path.join(dir, name);
const put = (fixture: string, as: string) => copyFileSync(path.join(FIXTURES, fixture), file(as));

const LISTS_ENV = {
  SVC_SANCTIONS_LISTS: 'ofac_sdn,ofac_consolidated,eu_fsf,uk_sanctions_list,un_sc',
  SVC_SANCTIONS_OFAC_SDN_SOURCE: file('sdn.xml'),
  SVC_SANCTIONS_OFAC_CONSOLIDATED_SOURCE: file('consolidated.xml'),
  SVC_SANCTIONS_EU_FSF_SOURCE: `file://${file('eu.xml')}`,
  SVC_SANCTIONS_UK_SANCTIONS_LIST_SOURCE: file('uk.xml'),
  SVC_SANCTIONS_UN_SC_SOURCE: file('un.xml'),
  SVC_SANCTIONS_OFAC_SDN_REFRESH_MINUTES: '60',
};

let ctx: TestContext;
let c: TestCaller;

beforeAll(async () => {
  put('ofac-sdn-v1.xml', 'sdn.xml');
  put('ofac-consolidated.xml', 'consolidated.xml');
  put('eu-fsf.xml', 'eu.xml');
  put('uk-sanctions-list.xml', 'uk.xml');
  put('un-consolidated.xml', 'un.xml');
  ctx = await createTestApp({ env: { ...PRODUCTION_ENV, ...LISTS_ENV } });
  c = await createTestClient(ctx, { productionAccess: true });
}, 120_000);
afterAll(() => ctx?.close());

const submit = async (name: string, extra: Record<string, unknown> = {}) => {
  const res = await api(ctx)(
    'POST',
    '/monitoring/transactions',
    c,
    txBody({ counterparty: { name, type: 'natural', account_identifier: `AC-${name}`, ...extra } }),
  );
  return res;
};
// A fresh staff login each time: the tests move the clock past a token's lifetime.
const status = async () =>
  (await api(ctx)('GET', '/admin/sanctions/status', (await staffHeaders(ctx)).headers)).json();
const sdn = async () => (await status()).lists.find((l: { list: string }) => l.list === 'ofac_sdn');
/** The next refresh slot; a new client caller, since the clock moves past a token's lifetime. */
const advanceHour = async () => {
  ctx.clock.advanceSeconds(3600);
  c = await createTestClient(ctx, { productionAccess: true });
};

describe('official sanctions lists in production', () => {
  it('answers 503 until every configured list has a version, and says so in /readyz', async () => {
    const res = await submit('Vladimir Ivanov');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is unavailable' });
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().sanctions).toHaveLength(5);
    expect(ready.json().sanctions[0]).toMatchObject({ list: 'ofac_sdn', version: null, stale: true });
  });

  it('the scheduled job loads every list into a versioned snapshot', async () => {
    await scheduleSanctionsLoads(ctx.deps);
    await scheduleSanctionsLoads(ctx.deps); // a second node at start: deduplicated
    expect(await runJobs(ctx, loadSanctionsListJob)).toBe(5);
    const s = await status();
    expect(s.configured).toBe(true);
    expect(
      s.lists.map((l: { list: string; entry_count: number; published_at: string }) => [
        l.list,
        l.entry_count,
        l.published_at,
      ]),
    ).toEqual([
      ['ofac_sdn', 4, '2026-11-02'],
      ['ofac_consolidated', 2, '2026-11-02'],
      ['eu_fsf', 3, '2026-11-03T18:40:51.758+01:00'],
      ['uk_sanctions_list', 2, '2026-11-04'],
      ['un_sc', 2, '2026-11-05T00:00:09.554Z'],
    ]);
    expect(s.lists[0]).toMatchObject({ stale: false, last_error: null, added_count: 4, removed_count: 0 });
    expect(s.lists[0].version).toMatch(/^2026-11-02#[0-9a-f]{12}$/);
  });

  it('monitoring names the list, the entry, the matched name and the score', async () => {
    const res = await submit('Vladimir Ivanov', { country: 'RU' });
    expect(res.statusCode).toBe(201);
    const t = res.json();
    expect(t).toMatchObject({ decision: 'IN_REVIEW', sanctions_hit: true });
    expect(t.sanctions_matches).toHaveLength(1);
    expect(t.sanctions_matches[0]).toMatchObject({
      list: 'OFAC SDN List',
      entry_id: '100',
      entry_name: 'Vladimir Petrovich IVANOV',
      matched_name: 'Vladimir IVANOFF', // the strong AKA aligns better than the primary name
      screened_name: 'Vladimir Ivanov',
      alias_strength: 'strong',
      country_check: 'agrees',
    });
    expect(t.sanctions_matches[0]).not.toHaveProperty('date_of_birth_check'); // the party gave none
    expect(t.sanctions_matches[0].match_score).toBeGreaterThanOrEqual(85);
    // A country that differs is reported with the hit, and never lowers it (OFAC FAQ 5).
    const fr = (await submit('Vladimir Petrovich Ivanov', { country: 'FR' })).json();
    expect(fr.sanctions_matches[0]).toMatchObject({
      entry_id: '100',
      match_score: 100,
      country_check: 'differs',
    });
    const cyr = (await submit('Игорь Смирнов')).json();
    expect(cyr.sanctions_matches[0]).toMatchObject({ list: 'UK Sanctions List', entry_id: 'RUS9001' });
    expect((await submit('Jane Smith')).json()).toMatchObject({ decision: 'APPROVED', sanctions_hit: false });
    // A weak AKA alone is no hit (OFAC FAQ 124).
    expect((await submit('Vova')).json().sanctions_hit).toBe(false);
  });

  it("the client's policy threshold applies", async () => {
    await putPolicy(ctx, c, {
      rules: [],
      sanctions: { enabled: true, action: 'decline', match_threshold: 100 },
    });
    expect((await submit('Vladimir Ivanov', { country: 'RU' })).json().sanctions_hit).toBe(false);
    const exact = (await submit('Vladimir Petrovich Ivanov')).json();
    expect(exact).toMatchObject({ decision: 'DECLINED', sanctions_hit: true });
    await putPolicy(ctx, c, { rules: [], sanctions: { enabled: true, action: 'review' } });
  });

  it('a new version replaces the old one: removed entries stop matching, new ones match', async () => {
    const before = await sdn();
    expect((await submit('Golden Sunrise Trading Ltd', { type: 'legal' })).json().sanctions_hit).toBe(true);
    put('ofac-sdn-v2.xml', 'sdn.xml');
    await advanceHour();
    await runJobs(ctx, loadSanctionsListJob);
    const after = await sdn();
    expect(after.version).not.toBe(before.version);
    expect(after).toMatchObject({
      published_at: '2026-11-09',
      entry_count: 4,
      added_count: 1,
      removed_count: 1,
    });
    expect((await submit('Golden Sunrise Trading Ltd', { type: 'legal' })).json().sanctions_hit).toBe(false);
    const garcia = (await submit('Jose Maria Garcia Lopez')).json();
    expect(garcia.sanctions_matches[0]).toMatchObject({
      entry_id: '104',
      matched_name: 'José María GARCÍA LÓPEZ',
    });
  });

  it('an unchanged file keeps its version', async () => {
    const before = await sdn();
    await advanceHour();
    await runJobs(ctx, loadSanctionsListJob);
    const after = await sdn();
    expect(after.version).toBe(before.version);
    expect(after.last_success_at).not.toBe(before.last_success_at);
  });

  it('a truncated or miscounted file keeps the last good version, reported in status, /readyz and metrics', async () => {
    const good = await sdn();
    for (const [fixture, error] of [
      ['ofac-sdn-truncated.xml', /not well-formed XML/],
      ['ofac-sdn-miscount.xml', /Record_Count says 9 entries, the file has 4/],
    ] as const) {
      put(fixture, 'sdn.xml');
      await advanceHour();
      await runJobs(ctx, loadSanctionsListJob);
      const now = await sdn();
      expect(now.version).toBe(good.version);
      expect(now.last_error).toMatch(error);
      // Screening still answers from the good version.
      expect((await submit('Jose Maria Garcia Lopez')).json().sanctions_hit).toBe(true);
    }
    const ready = (await ctx.app.inject({ method: 'GET', url: '/readyz' })).json();
    expect(ready.sanctions[0]).toMatchObject({ list: 'ofac_sdn', version: good.version, stale: false });
    expect(ready.sanctions[0].last_error).toMatch(/Record_Count/);
    const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/svc_sanctions_list_age_seconds\{list="ofac_sdn"\} \d+/);
    expect(metrics).toMatch(/svc_sanctions_list_loads_total\{list="ofac_sdn",outcome="failed"\} [1-9]/);
    expect(metrics).toMatch(/svc_sanctions_list_entries\{list="ofac_sdn"\} 4/);
    // The next good file clears the error.
    put('ofac-sdn-v2.xml', 'sdn.xml');
    await advanceHour();
    await runJobs(ctx, loadSanctionsListJob);
    expect(await sdn()).toMatchObject({ version: good.version, last_error: null });
  });

  it('a second node screens against the same version from the database, loading nothing', async () => {
    const node2 = await createTestApp({
      env: { ...PRODUCTION_ENV, ...LISTS_ENV },
      database: ctx.deps.database,
    });
    try {
      const hits = await node2.deps.providers.sanctions.screen(node2.deps, [{ name: 'Aleksandr Volkov' }], {
        threshold: 85,
      });
      expect(hits[0]).toEqual([
        expect.objectContaining({ list: 'EU Consolidated Financial Sanctions List', entry_id: '300' }),
      ]);
    } finally {
      await node2.close();
    }
  });

  it('a cleared hit stays cleared for that entry, across list versions; a new entry of the same name alerts again', async () => {
    const party = { type: 'natural', account_identifier: 'AC-YASIN-1' };
    const submitYasin = async () =>
      (
        await api(ctx)(
          'POST',
          '/monitoring/transactions',
          c,
          txBody({ counterparty: { name: 'Abdul Rahman Yasin', ...party } }),
        )
      ).json();
    const first = await submitYasin();
    expect(first.sanctions_matches).toEqual([
      expect.objectContaining({
        list: 'UN Security Council Consolidated List',
        entry_id: '6909001',
        screened_name: 'Abdul Rahman Yasin',
        list_version: expect.stringMatching(/^2026-11-05T00:00:09.554Z#[0-9a-f]{12}$/),
      }),
    ]);
    const cleared = await api(ctx)(
      'POST',
      `/monitoring/transactions/${first.monitored_transaction_id}/review`,
      c,
      {
        decision: 'APPROVED',
        note: 'Another person: born 1991 in Amman',
        clear_sanctions_match: true,
      },
    );
    expect(cleared.statusCode).toBe(200);
    expect((await submitYasin()).sanctions_hit).toBe(false);
    // The UN designates another person of the same name: a new entry (and a new list version).
    const un = readFileSync(path.join(FIXTURES, 'un-consolidated.xml'), 'utf8')
      .replace('dateGenerated="2026-11-05T00:00:09.554Z"', 'dateGenerated="2026-11-12T00:00:01.000Z"')
      .replace(
        '  </INDIVIDUALS>',
        `    <INDIVIDUAL>
      <DATAID>6909002</DATAID>
      <VERSIONNUM>1</VERSIONNUM>
      <FIRST_NAME>ABDUL RAHMAN</FIRST_NAME>
      <SECOND_NAME>YASIN</SECOND_NAME>
      <UN_LIST_TYPE>Al-Qaida</UN_LIST_TYPE>
      <REFERENCE_NUMBER>QDi.902</REFERENCE_NUMBER>
      <LISTED_ON>2026-11-11</LISTED_ON>
      <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>EXACT</TYPE_OF_DATE><YEAR>1991</YEAR></INDIVIDUAL_DATE_OF_BIRTH>
    </INDIVIDUAL>
  </INDIVIDUALS>`,
      );
    writeFileSync(file('un.xml'), un);
    expect(await ctx.deps.providers.sanctions.load(ctx.deps, 'un_sc')).toMatchObject({
      outcome: 'loaded',
      added: 1,
    });
    const again = await submitYasin();
    expect(again.sanctions_hit).toBe(true);
    expect(again.sanctions_matches).toEqual([
      expect.objectContaining({
        entry_id: '6909002',
        list_version: expect.stringMatching(/^2026-11-12T00:00:01.000Z#/),
      }),
    ]);
    // Another party of that name (another account) was never cleared: both entries alert.
    const other = (
      await api(ctx)(
        'POST',
        '/monitoring/transactions',
        c,
        txBody({ counterparty: { name: 'Abdul Rahman Yasin', type: 'natural', account_identifier: 'AC-2' } }),
      )
    ).json();
    expect(other.sanctions_matches.map((m: { entry_id: string }) => m.entry_id).sort()).toEqual([
      '6909001',
      '6909002',
    ]);
  });

  it('refuses a publication older than the current version', async () => {
    const before = await sdn();
    put('ofac-sdn-v1.xml', 'sdn.xml'); // published 2026-11-02; v2 (2026-11-09) is current
    await expect(ctx.deps.providers.sanctions.load(ctx.deps, 'ofac_sdn')).rejects.toThrow(
      "the file was published 2026-11-02, before the current version's 2026-11-09: refused",
    );
    expect(await sdn()).toMatchObject({
      version: before.version,
      last_error: expect.stringMatching(/refused/),
    });
    put('ofac-sdn-v2.xml', 'sdn.xml');
    await ctx.deps.providers.sanctions.load(ctx.deps, 'ofac_sdn');
  });

  it("the clean-up leaves another node's load in progress alone, and removes a crashed one", async () => {
    const db = ctx.deps.db;
    const now = ctx.clock.now();
    const snapshot = async (status: string, createdAt: Date) => {
      const id = newId();
      await db.insert(sanctionsListSnapshots).values({
        id,
        list: 'ofac_sdn',
        version: `test#${id.slice(0, 8)}`,
        contentSha256: id,
        entryCount: 1,
        status: status as 'loading',
        createdAt,
      });
      await db.insert(sanctionsListEntries).values({
        snapshotId: id,
        position: 0,
        entryId: 'X',
        data: { k: 'individual', n: [], d: [], c: [] },
      });
      return id;
    };
    const inProgress = await snapshot('loading', new Date(now.getTime() - 60_000));
    const crashed = await snapshot('loading', new Date(now.getTime() - 2 * 3600_000));
    // A load that changes the list (v1 is older than v2: published later here).
    writeFileSync(
      file('sdn.xml'),
      readFileSync(path.join(FIXTURES, 'ofac-sdn-v2.xml'), 'utf8').replace('11/09/2026', '11/10/2026'),
    );
    expect(await ctx.deps.providers.sanctions.load(ctx.deps, 'ofac_sdn')).toMatchObject({
      outcome: 'loaded',
    });
    const left = async (id: string) =>
      (await db.select().from(sanctionsListEntries).where(eq(sanctionsListEntries.snapshotId, id))).length;
    expect(await left(inProgress)).toBe(1);
    expect(await left(crashed)).toBe(0);
  });

  it('a version read while another node replaces it never screens as a partial list', async () => {
    const node2 = await createTestApp({
      env: { ...PRODUCTION_ENV, ...LISTS_ENV },
      database: ctx.deps.database,
    });
    try {
      const [state] = await readListStates(ctx.deps.db, ['ofac_sdn']);
      // The version's entries half gone (as when another node has just superseded and deleted them).
      await ctx.deps.db
        .delete(sanctionsListEntries)
        .where(
          and(eq(sanctionsListEntries.snapshotId, state!.snapshotId!), eq(sanctionsListEntries.position, 0)),
        );
      await expect(
        node2.deps.providers.sanctions.screen(node2.deps, [{ name: 'Jose Maria Garcia Lopez' }], {
          threshold: 85,
        }),
      ).rejects.toThrow(/ofac_sdn: read 3 of 4 entries/);
    } finally {
      await node2.close();
    }
    // Restore a whole version for the tests after this one.
    writeFileSync(
      file('sdn.xml'),
      readFileSync(path.join(FIXTURES, 'ofac-sdn-v2.xml'), 'utf8').replace('11/09/2026', '11/11/2026'),
    );
    await ctx.deps.providers.sanctions.load(ctx.deps, 'ofac_sdn');
  });

  it('fails closed once a list is not confirmed current within SVC_SANCTIONS_MAX_AGE_HOURS, and says so in /readyz', async () => {
    ctx.clock.advanceSeconds(49 * 3600); // default 48 hours, no load in between
    c = await createTestClient(ctx, { productionAccess: true });
    const res = await submit('Jane Smith');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ detail: 'Screening provider is unavailable' });
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ sanctions_screening: 'unavailable' });
    expect(ready.json().sanctions[0]).toMatchObject({ list: 'ofac_sdn', stale: true });
    // The scheduled checks find the files unchanged: confirmed current again, screening resumes.
    await scheduleSanctionsLoads(ctx.deps);
    await runJobs(ctx, loadSanctionsListJob);
    expect((await ctx.app.inject({ method: 'GET', url: '/readyz' })).json()).toMatchObject({
      sanctions_screening: 'available',
    });
    expect((await submit('Jane Smith')).statusCode).toBe(201);
  });

  it('staff only: a client token is refused on the status route', async () => {
    expect((await api(ctx)('GET', '/admin/sanctions/status', c)).statusCode).toBe(401);
  });
});

describe('SVC_SANCTIONS_* validation at start', () => {
  const base = { ...PRODUCTION_ENV };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (e) {
      return (e as ConfigError).problems;
    }
  };
  it('refuses unknown lists, the sandbox list in production, the EU list without its source and bad sources', () => {
    expect(problems({ ...base, SVC_SANCTIONS_LISTS: 'ofac_sdn,nope' })).toContain(
      'SVC_SANCTIONS_LISTS: unknown list "nope" (one of sandbox, ofac_sdn, ofac_consolidated, eu_fsf, uk_sanctions_list, un_sc)',
    );
    expect(problems({ ...base, SVC_SANCTIONS_LISTS: 'sandbox' })).toContain(
      'SVC_SANCTIONS_LISTS: the sandbox list is for sandbox deployments',
    );
    expect(problems({ ...base, SVC_SANCTIONS_LISTS: 'eu_fsf' })).toContain(
      "SVC_SANCTIONS_EU_FSF_SOURCE is required when SVC_SANCTIONS_LISTS names eu_fsf (the EU file's URL carries its token)",
    );
    expect(
      problems({
        ...base,
        SVC_SANCTIONS_LISTS: 'un_sc',
        SVC_SANCTIONS_UN_SC_SOURCE: 'http://example.com/un.xml',
      }),
    ).toContain(
      'SVC_SANCTIONS_UN_SC_SOURCE must be an https URL or an absolute file path (got "http://example.com/un.xml")',
    );
    expect(loadConfig({ ...base, SVC_SANCTIONS_LISTS: 'ofac_sdn' }).sanctions.lists[0]).toMatchObject({
      list: 'ofac_sdn',
      source: {
        kind: 'url',
        url: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.XML',
      },
      refreshMinutes: 240,
    });
    expect(loadConfig({ ...base }).sanctions).toMatchObject({ sandbox: false, lists: [] });
    expect(loadConfig({}).sanctions).toMatchObject({ sandbox: true, lists: [] });
  });
});
