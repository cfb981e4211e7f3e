/**
 * The test helper's shared app (test/helpers/app.ts): `createTestApp()` without settings hands out
 * one app per worker, and each file gets it over an empty database with nothing left from the file
 * before (clock, mail, metrics); other settings, a second app at once, or an app a file changed
 * (a spy left in place, a changed setting, a listening port) are never handed on.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rowsOf } from '../../src/db/client';
import {
  createTestApp,
  MemoryMailer,
  sharedAppStats,
  TEST_CLOCK_START,
  type TestContext,
} from '../helpers/app';
import { createTestClient } from '../helpers/clients';
import { endFile } from '../helpers/file-end';

/** Rows in every table of the app's database. */
async function rowCount(ctx: TestContext): Promise<number> {
  const tables = rowsOf<{ name: string }>(
    await ctx.db.execute(
      sql`select quote_ident(tablename) as name from pg_tables where schemaname = 'public' order by 1`,
    ),
  );
  expect(tables.length).toBeGreaterThan(20);
  const counts = rowsOf<{ n: number | string }>(
    await ctx.db.execute(
      sql.raw(tables.map((t) => `select count(*) as n from ${t.name}`).join(' union all ')),
    ),
  );
  return counts.reduce((sum, c) => sum + Number(c.n), 0);
}

const open: TestContext[] = [];
async function lease(opts?: Parameters<typeof createTestApp>[0]): Promise<TestContext> {
  const ctx = await createTestApp(opts);
  open.push(ctx);
  return ctx;
}
afterEach(async () => {
  for (const ctx of open.splice(0).reverse()) await ctx.close();
  vi.restoreAllMocks();
});

// Several app builds per test: seconds each on a loaded machine.
describe('the worker shared test app', { timeout: 240_000 }, () => {
  it('is reused by the next file, over an emptied database, with its clock, mail and metrics reset', async () => {
    const first = await lease();
    const builds = sharedAppStats().builds;
    const caller = await createTestClient(first, { role: 'owner' });
    const me = await first.app.inject({ url: '/api/v1/auth/me', headers: caller.headers });
    expect(me.statusCode).toBe(200);
    first.clock.advance(86_400_000);
    await first.deps.mailer.send({ to: 'a@example.com', subject: 'first', text: 'first file' });
    expect((first.mailer as MemoryMailer).sent).toHaveLength(1);
    expect(await rowCount(first)).toBeGreaterThan(0);
    expect((await first.deps.metrics.metrics()).includes('route="/api/v1/auth/me"')).toBe(true);
    await first.close();
    expect(sharedAppStats().leased).toBe(false);

    const second = await lease();
    expect(second.app).toBe(first.app);
    expect(second.deps).toBe(first.deps);
    expect(sharedAppStats().builds).toBe(builds);
    expect(await rowCount(second)).toBe(0);
    expect(second.clock.now()).toEqual(TEST_CLOCK_START);
    expect(second.mailer).not.toBe(first.mailer);
    expect((second.mailer as MemoryMailer).sent).toHaveLength(0);
    expect(await second.deps.metrics.metrics()).not.toContain('route="/api/v1/auth/me"');
    // The token of the first file's client names a client that no longer exists.
    const stale = await second.app.inject({ url: '/api/v1/auth/me', headers: caller.headers });
    expect(stale.statusCode).toBe(401);
    // The service's mail now reaches the second file's mailer only.
    await second.deps.mailer.send({ to: 'b@example.com', subject: 'second', text: 'second file' });
    expect((second.mailer as MemoryMailer).sent.map((m) => m.subject)).toEqual(['second']);
    expect((first.mailer as MemoryMailer).sent.map((m) => m.subject)).toEqual(['first']);
  });

  it('forwards the service mail to a mailer the file passes', async () => {
    const mine = new MemoryMailer();
    const ctx = await lease({ mailer: mine });
    expect(ctx.mailer).toBe(mine);
    expect(sharedAppStats().leased).toBe(true);
    await ctx.deps.mailer.send({ to: 'c@example.com', subject: 'mine', text: 'x' });
    expect(mine.sent).toHaveLength(1);
  });

  it('builds an app of its own for other settings and while the shared one is in use', async () => {
    const shared = await lease();
    const leases = sharedAppStats().leases;
    const second = await lease();
    expect(second.app).not.toBe(shared.app);
    expect(second.db).not.toBe(shared.db);
    await createTestClient(shared);
    expect(await rowCount(second)).toBe(0);
    await open.pop()!.close();
    await open.pop()!.close();
    const withEnv = await lease({ env: { SVC_SANDBOX_SCREENING_DELAY_SECONDS: '7' } });
    expect(withEnv.app).not.toBe(shared.app);
    expect(sharedAppStats().leases).toBe(leases);
    expect(sharedAppStats().leased).toBe(false);
  });

  it('is not handed on once a file changed it: a spy left in place, a setting, a listening port', async () => {
    const changes: ((ctx: TestContext) => Promise<unknown> | unknown)[] = [
      (ctx) => vi.spyOn(ctx.deps.clock, 'now'),
      (ctx) => {
        (ctx.config as { publicUrl: string }).publicUrl = 'http://changed.example';
      },
      (ctx) => ctx.app.listen({ port: 0, host: '127.0.0.1' }),
      (ctx) => {
        (ctx.deps.providers as unknown as Record<string, unknown>).bank = {};
      },
    ];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    for (const change of changes) {
      const ctx = await lease();
      await change(ctx);
      await open.pop()!.close();
      vi.mocked(ctx.deps.clock.now).mockRestore?.();
      const next = await lease();
      expect(next.app).not.toBe(ctx.app);
      expect(next.config.publicUrl).toBe('http://localhost:8000');
      await open.pop()!.close();
    }
    expect(warn).toHaveBeenCalledTimes(changes.length);
  });

  it('is given back when a file ends without closing it', async () => {
    const ctx = await createTestApp();
    expect(sharedAppStats().leased).toBe(true);
    await endFile();
    expect(sharedAppStats().leased).toBe(false);
    const next = await lease();
    expect(next.app).toBe(ctx.app);
  });
});
