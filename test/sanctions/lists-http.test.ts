/**
 * The load job against HTTP file servers (test/standins/sanctions): a conditional GET (ETag,
 * Last-Modified) so an unchanged list is neither downloaded nor parsed again; and 429, 5xx, a slow
 * answer past the deadline and a truncated body, each keeping the last good version while the job
 * retries (1, 5 and 15 minutes), until the next period loads the new file.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSanctionsListJob, scheduleSanctionsLoads } from '../../src/providers/sanctions/sanctions.module';
import { createTestApp, type TestContext } from '../helpers/app';
import { runJobs } from '../helpers/jobs';
import { type SanctionsStandin, startSanctionsStandin } from '../standins/sanctions/server';

const fixture = (f: string) => readFileSync(new URL(`../fixtures/sanctions/${f}`, import.meta.url), 'utf8');
const V1 = fixture('un-consolidated.xml');
const V2 = V1.replace('2026-11-05T00:00:09.554Z', '2026-11-12T00:00:01.000Z').replace(
  '<ENTITIES>',
  `<ENTITIES>
    <ENTITY>
      <DATAID>6909101</DATAID>
      <FIRST_NAME>HARBOUR LIGHT SHIPPING</FIRST_NAME>
      <ENTITY_ADDRESS><COUNTRY>Pakistan</COUNTRY></ENTITY_ADDRESS>
    </ENTITY>`,
);

let standin: SanctionsStandin;
let ctx: TestContext;

beforeAll(async () => {
  standin = await startSanctionsStandin({ slowMs: 3_000 });
  standin.publish('/un.xml', V1);
  ctx = await createTestApp({
    env: {
      SVC_SANCTIONS_LISTS: 'un_sc',
      SVC_SANCTIONS_UN_SC_SOURCE: `${standin.url}/un.xml`,
      SVC_SANCTIONS_UN_SC_REFRESH_MINUTES: '60',
      SVC_SANCTIONS_TIMEOUT_MS: '1000',
    },
  });
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  await standin?.close();
});

const state = async () =>
  (await ctx.deps.providers.sanctions.status(ctx.deps)).find((l) => l.list === 'un_sc')!;
const screen = async (name: string) =>
  (await ctx.deps.providers.sanctions.screen(ctx.deps, [{ name }], { threshold: 85 }))[0]!;
const metric = async (outcome: string) => {
  const m = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(
    new RegExp(`svc_sanctions_list_loads_total\\{list="un_sc",outcome="${outcome}"\\} (\\d+)`).exec(m)?.[1] ??
      0,
  );
};

describe('lists read over HTTP', () => {
  it('the first read downloads and loads; the next period asks conditionally and parses nothing on 304', async () => {
    await scheduleSanctionsLoads(ctx.deps);
    expect(await runJobs(ctx, loadSanctionsListJob)).toBe(1);
    const first = await state();
    expect(first).toMatchObject({ entry_count: 2, last_error: null });
    expect(standin.requests.at(-1)).toMatchObject({ answer: 200, ifNoneMatch: undefined });
    ctx.clock.advanceSeconds(3600);
    await runJobs(ctx, loadSanctionsListJob);
    expect(standin.requests.at(-1)).toMatchObject({
      answer: 304,
      ifNoneMatch: expect.stringMatching(/^"[0-9a-f]{16}"$/),
      ifModifiedSince: expect.any(String),
    });
    const after = await state();
    expect(after.version).toBe(first.version);
    expect(after.last_success_at).not.toBe(first.last_success_at);
    expect(await metric('unchanged')).toBe(1);
  });

  it('429, 5xx, a slow answer and a truncated body keep the last good version while the job retries', async () => {
    const good = await state();
    standin.publish('/un.xml', V2);
    standin.fail('too_many_requests', 'server_error', 'slow', 'truncated');
    ctx.clock.advanceSeconds(3600);
    const seen: string[] = [];
    for (const wait of [0, 61, 301, 901]) {
      ctx.clock.advanceSeconds(wait);
      await runJobs(ctx, loadSanctionsListJob);
      const s = await state();
      expect(s.version).toBe(good.version);
      seen.push(s.last_error ?? '');
      // Screening answers from the good version all along.
      expect(await screen('Abdul Rahman Yasin')).toEqual([expect.objectContaining({ entry_id: '6909001' })]);
      expect(await screen('Harbour Light Shipping')).toEqual([]);
    }
    expect(seen).toEqual([
      'HTTP 429',
      'HTTP 503',
      'no complete answer within 1000 ms',
      expect.stringMatching(/^download (ended after \d+ of \d+ bytes|failed: )/),
    ]);
    expect(standin.requests.slice(-4).map((r) => r.answer)).toEqual([
      'too_many_requests',
      'server_error',
      'slow',
      'truncated',
    ]);
    expect(await metric('failed')).toBe(4);
  });

  it('the next period loads the new file, and clears the error', async () => {
    ctx.clock.advanceSeconds(3600);
    await runJobs(ctx, loadSanctionsListJob);
    expect(standin.requests.at(-1)).toMatchObject({ answer: 200 });
    expect(await state()).toMatchObject({
      published_at: '2026-11-12T00:00:01.000Z',
      entry_count: 3,
      added_count: 1,
      last_error: null,
    });
    expect(await screen('Harbour Light Shipping')).toEqual([
      expect.objectContaining({ entry_id: '6909101' }),
    ]);
  });
});
