/**
 * Monitored wallets' re-screens are timers (`screening.wallet_rescreen`, one per wallet, due at
 * `next_rescreen_at`): set when monitoring starts and by every screening of a monitored wallet,
 * removed when monitoring stops, re-armed by the re-screen itself, run by the jobs runner at the due
 * time on the manual clock and claimed once by racing runners; a time moved later by hand moves the
 * timer; wallets of the previous release (a due time, no job) are backfilled.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, screeningWallets, walletScreenings } from '../../src/db/schema/index';
import { jobKindLabel, modules, timerDefinitions } from '../../src/modules/index';
import { jobRegistry, runDueJobs, timersBackfillJob } from '../../src/platform/jobs/index';
import { enqueueTimersBackfill } from '../../src/platform/jobs/timers';
import { createTestApp, type TestContext } from '../helpers/app';
import { createTestClient, type TestCaller } from '../helpers/clients';
import { runJobs } from '../helpers/jobs';
import { createKycWorld } from '../kyc/fixtures';
import { api, evm } from './fixtures';

const KIND = 'screening.wallet_rescreen';
const HOUR = 3600_000;
let ctx: TestContext;
let call: ReturnType<typeof api>;
let caller: TestCaller;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SVC_SCREENING_RESCREEN_HOURS: '24' } });
  call = api(ctx);
  caller = (await createKycWorld(ctx)).caller;
});
afterAll(() => ctx?.close());

/** A fresh token for the same client (the manual clock moves past token lifetimes). */
async function refresh() {
  caller = { ...(await createTestClient(ctx, { clientId: caller.clientId })), clientId: caller.clientId };
}
const screen = async (address: string, extra: Record<string, unknown> = {}) => {
  const res = await call('POST', '/screening/wallet', caller.headers, {
    chain: 'ethereum',
    address,
    ...extra,
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { screening_id: string; wallet_id: string };
};
const timerOf = async (walletId: string) => {
  const rows = await ctx.db
    .select()
    .from(jobs)
    .where(and(eq(jobs.kind, KIND), eq(jobs.dedupeKey, `wallet:${walletId}`)));
  return rows[0] ?? null;
};
const walletOf = async (walletId: string) => {
  const [w] = await ctx.db.select().from(screeningWallets).where(eq(screeningWallets.id, walletId));
  return w!;
};
const monitoringScreenings = (walletId: string) =>
  ctx.db
    .select()
    .from(walletScreenings)
    .where(and(eq(walletScreenings.walletId, walletId), eq(walletScreenings.trigger, 'monitoring')));

describe('monitored re-screens as timers', () => {
  it('a monitored wallet has one timer at next_rescreen_at; it re-screens at that time and re-arms', async () => {
    expect(timerDefinitions.map((d) => d.kind)).toContain(KIND);
    expect(jobKindLabel(KIND)).toBe('Monitored wallet re-screen');
    // No loop of the screening feature any more.
    expect(modules.find((m) => m.name === 'screening')?.workers?.(ctx.deps) ?? []).toEqual([]);

    const s = await screen(evm('1357'), { monitor: true });
    const w = await walletOf(s.wallet_id);
    expect(w.nextRescreenAt!.getTime()).toBe(ctx.clock.now().getTime() + 24 * HOUR);
    const timer = await timerOf(s.wallet_id);
    expect(timer).toMatchObject({
      status: 'pending',
      clientId: caller.clientId,
      payload: { walletId: s.wallet_id, clientId: caller.clientId },
    });
    expect(timer!.runAt.getTime()).toBe(w.nextRescreenAt!.getTime());

    ctx.clock.advance(24 * HOUR - 1000);
    await runJobs(ctx);
    expect(await monitoringScreenings(s.wallet_id)).toEqual([]);
    ctx.clock.advance(1000);
    await runJobs(ctx);
    const done = await monitoringScreenings(s.wallet_id);
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ status: 'completed', trigger: 'monitoring' });
    // Re-armed by the re-screen: the next one a period later, the same job row.
    const next = await timerOf(s.wallet_id);
    expect(next).toMatchObject({ id: timer!.id, status: 'pending' });
    expect(next!.runAt.getTime()).toBe(ctx.clock.now().getTime() + 24 * HOUR);
    expect((await walletOf(s.wallet_id)).nextRescreenAt!.getTime()).toBe(next!.runAt.getTime());
    // Nothing more before then.
    ctx.clock.advance(HOUR);
    await runJobs(ctx);
    expect(await monitoringScreenings(s.wallet_id)).toHaveLength(1);
  });

  it('no timer without monitoring; turning it on sets one, turning it off removes it', async () => {
    await refresh();
    const address = evm('2468');
    const s = await screen(address);
    expect(await timerOf(s.wallet_id)).toBeNull();
    const on = await call('PATCH', `/screening/wallets/${s.wallet_id}`, caller.headers, { monitored: true });
    expect(on.statusCode).toBe(200);
    const w = await walletOf(s.wallet_id);
    const timer = await timerOf(s.wallet_id);
    expect(timer).toMatchObject({ status: 'pending' });
    expect(timer!.runAt.getTime()).toBe(w.nextRescreenAt!.getTime());
    // A label change leaves the timer alone.
    await call('PATCH', `/screening/wallets/${s.wallet_id}`, caller.headers, { label: 'Cold wallet' });
    expect((await timerOf(s.wallet_id))!.runAt.getTime()).toBe(w.nextRescreenAt!.getTime());
    const off = await call('PATCH', `/screening/wallets/${s.wallet_id}`, caller.headers, {
      monitored: false,
    });
    expect(off.json().monitored).toBe(false);
    expect(await timerOf(s.wallet_id)).toBeNull();
    // A screening of the unmonitored wallet sets none either.
    expect((await screen(address)).wallet_id).toBe(s.wallet_id);
    ctx.clock.advance(48 * HOUR);
    await runJobs(ctx);
    expect(await timerOf(s.wallet_id)).toBeNull();
    expect(await monitoringScreenings(s.wallet_id)).toEqual([]);
  });

  it('two runners racing for a due re-screen screen the wallet once', async () => {
    await refresh();
    const s = await screen(evm('1470'), { monitor: true });
    ctx.clock.advance(24 * HOUR);
    await Promise.all([runJobs(ctx), runJobs(ctx), runJobs(ctx)]);
    expect(await monitoringScreenings(s.wallet_id)).toHaveLength(1);
  });

  it('a due time moved later by hand moves the timer; the old time screens nothing', async () => {
    await refresh();
    const s = await screen(evm('1480'), { monitor: true });
    const later = new Date(ctx.clock.now().getTime() + 48 * HOUR);
    await ctx.db
      .update(screeningWallets)
      .set({ nextRescreenAt: later })
      .where(eq(screeningWallets.id, s.wallet_id));
    ctx.clock.advance(24 * HOUR);
    await runJobs(ctx);
    expect(await monitoringScreenings(s.wallet_id)).toEqual([]);
    const moved = await timerOf(s.wallet_id);
    expect(moved).toMatchObject({ status: 'pending' });
    expect(moved!.runAt.getTime()).toBe(later.getTime());
    ctx.clock.advance(24 * HOUR);
    await runJobs(ctx);
    expect(await monitoringScreenings(s.wallet_id)).toHaveLength(1);
  });

  it('monitored wallets of the previous release (a due time, no timer) are backfilled and re-screened', async () => {
    await refresh();
    const s = await screen(evm('1490'), { monitor: true });
    // As the previous release left it: the wallet's due time, no job.
    await ctx.db.delete(jobs).where(and(eq(jobs.kind, KIND), eq(jobs.dedupeKey, `wallet:${s.wallet_id}`)));
    const due = (await walletOf(s.wallet_id)).nextRescreenAt!;
    await enqueueTimersBackfill(ctx.deps);
    await runDueJobs(ctx.deps, jobRegistry([timersBackfillJob(timerDefinitions)]), {
      onlyDefinedKinds: true,
    });
    const timer = await timerOf(s.wallet_id);
    expect(timer).toMatchObject({
      status: 'pending',
      payload: { walletId: s.wallet_id, clientId: caller.clientId },
    });
    expect(timer!.runAt.getTime()).toBe(due.getTime());
    ctx.clock.advance(24 * HOUR);
    await runJobs(ctx);
    expect(await monitoringScreenings(s.wallet_id)).toHaveLength(1);
  });
});
