/**
 * The load job against HTTP file servers (test/standins/sanctions): a conditional GET (ETag,
 * Last-Modified) so an unchanged list is neither downloaded nor parsed again; and 429, 5xx, a slow
 * answer past the deadline and a truncated body, each keeping the last good version while the job
 * retries (1, 5 and 15 minutes), until the next period loads the new file; a 429 or 503 with
 * `Retry-After` holds every load of the list (job retry, next period, another node) until then,
 * capped by SVC_SANCTIONS_MAX_RETRY_AFTER_SECONDS, and says so in the staff status and /readyz.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListDeferredError } from '../../src/providers/sanctions/port';
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
      SVC_SANCTIONS_MAX_RETRY_AFTER_SECONDS: '1800',
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
      expect.stringMatching(/^HTTP 429 \(Retry-After 60 s\): no new attempt before \d{4}-/),
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

  it('a Retry-After holds every load until then: the job retry, the next period, another caller', async () => {
    const requests = () => standin.requests.length;
    const readyz = async () =>
      (
        (await ctx.app.inject({ method: 'GET', url: '/readyz' })).json().sanctions as Record<
          string,
          unknown
        >[]
      )[0]!;
    standin.retryAfter = '600';
    standin.fail('too_many_requests');
    ctx.clock.advanceSeconds(3600);
    await runJobs(ctx, loadSanctionsListJob);
    const asked = ctx.clock.now().getTime();
    let s = await state();
    expect(standin.requests.at(-1)).toMatchObject({ answer: 'too_many_requests' });
    expect(s.last_error).toMatch(/^HTTP 429 \(Retry-After 600 s\): no new attempt before /);
    expect(Date.parse(s.retry_not_before!)).toBe(asked + 600_000);
    expect(await readyz()).toMatchObject({ retry_not_before: s.retry_not_before, last_error: s.last_error });

    // Before then: the job is not due, and a load by anyone else makes no request.
    const before = requests();
    ctx.clock.advanceSeconds(120);
    expect(await runJobs(ctx, loadSanctionsListJob)).toBe(0);
    await expect(ctx.deps.providers.sanctions.load(ctx.deps, 'un_sc')).rejects.toBeInstanceOf(
      ListDeferredError,
    );
    expect(requests()).toBe(before);
    expect(await metric('deferred')).toBe(1);

    // Then the job's retry reads the file, and the wait is cleared.
    ctx.clock.advanceSeconds(481);
    expect(await runJobs(ctx, loadSanctionsListJob)).toBe(1);
    expect(requests()).toBe(before + 1);
    s = await state();
    expect(s).toMatchObject({ last_error: null, retry_not_before: null });
    expect(await readyz()).toMatchObject({ retry_not_before: null });
  });

  it('a 503 asking for a day is capped at SVC_SANCTIONS_MAX_RETRY_AFTER_SECONDS; an HTTP date is read too', async () => {
    standin.retryAfter = '86400';
    standin.fail('unavailable_retry_after');
    ctx.clock.advanceSeconds(3600);
    await runJobs(ctx, loadSanctionsListJob);
    const asked = ctx.clock.now().getTime();
    let s = await state();
    expect(s.last_error).toMatch(
      /^HTTP 503 \(Retry-After 86400 s, capped at 1800 s\): no new attempt before /,
    );
    expect(Date.parse(s.retry_not_before!)).toBe(asked + 1_800_000);
    const before = standin.requests.length;
    // Nearly half an hour on, the next period's job comes due: deferred, it asks nothing.
    ctx.clock.advanceSeconds(1799);
    await runJobs(ctx, loadSanctionsListJob);
    expect(standin.requests.length).toBe(before);
    // An HTTP date (RFC 9110 10.2.3) a few minutes ahead of the real clock.
    standin.retryAfter = new Date(Date.now() + 300_000).toUTCString();
    standin.fail('too_many_requests');
    ctx.clock.advanceSeconds(1);
    expect(await runJobs(ctx, loadSanctionsListJob)).toBe(1);
    s = await state();
    expect(s.last_error).toMatch(/^HTTP 429 \(Retry-After (29\d|300) s\)/);
    ctx.clock.advanceSeconds(301);
    await runJobs(ctx, loadSanctionsListJob);
    expect(await state()).toMatchObject({ last_error: null, retry_not_before: null });
  });
});
