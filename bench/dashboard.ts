/**
 * Dashboard payments list at scale (`npm run bench:dashboard`): the issue asks that "the payments
 * list shows its first page in under 300 ms after the API answers at 1M transactions". Seeds one
 * client with BENCH_TRANSACTIONS (default 1,000,000) transactions the way bench/api.ts does (fresh
 * database on the server of DATABASE_URL, else a temp PGlite directory), starts the built service,
 * signs in through Playwright (headless Chromium) and opens the payments list. Each sample is the
 * time from the moment the list API response has finished (page.waitForResponse, then
 * response.finished()) to the moment the response's first transaction is visible as the first row,
 * for a reload, a status filter, the next page and clearing the filter, BENCH_ROUNDS times
 * (default 5). Prints every sample, and p50 and max per kind and overall.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Page, Response } from 'playwright-core';
import { hashPassword } from '../src/modules/auth/passwords/hashing.service';
import { launchChromium } from '../test/helpers/browser';
import { freePort, openBenchDatabase, seed, waitReady } from './api';
import { startService, stopChild } from './report';

export interface FirstRowTiming {
  label: string;
  ms: number;
}

const isList = (r: Response) =>
  r.request().method() === 'GET' && new URL(r.url()).pathname === '/api/v1/transactions';

/**
 * One sample: runs `action`, waits for the list response whose query matches `want`, then times
 * from its end to the first row showing the response's first transaction.
 */
async function timeFirstRow(
  page: Page,
  label: string,
  want: { status?: string; page?: string },
  action: () => Promise<unknown>,
): Promise<FirstRowTiming> {
  const matches = (r: Response) => {
    if (!isList(r)) return false;
    const q = new URL(r.url()).searchParams;
    return (q.get('status') ?? undefined) === want.status && (q.get('page') ?? undefined) === want.page;
  };
  const response = page.waitForResponse(matches, { timeout: 60_000 });
  await action();
  const res = await response;
  await res.finished();
  const t0 = performance.now();
  const body = (await res.json()) as { transactions: { transaction_id: string }[] };
  const first = body.transactions[0];
  if (!first) throw new Error(`${label}: the list is empty`);
  await page
    .locator('main tbody tr')
    .first()
    .locator(`a[href$="/payments/${first.transaction_id}"]`)
    .waitFor({ state: 'visible', timeout: 60_000 });
  return { label, ms: performance.now() - t0 };
}

/**
 * On a signed-in payments list (page 1, no filter): reload, filter by status, next page, clear the
 * filter; `rounds` times.
 */
export async function firstRowTimings(
  page: Page,
  base: string,
  rounds = 1,
  opts: {
    /**
     * Before clearing the filter: the unfiltered page was fetched a moment ago and is fresh for the
     * dashboard's stale time (1 s), so clearing shows it from the cache and its next fetch is the 5 s
     * poll. A test with a fake page clock (page.clock.install) moves the clock past the stale time
     * here, so the fetch starts at once instead of a poll later; the sample is the same.
     */
    beforeClear?: () => Promise<void>;
  } = {},
): Promise<FirstRowTiming[]> {
  const out: FirstRowTiming[] = [];
  for (let i = 0; i < rounds; i++) {
    if (new URL(page.url()).search) await page.goto(`${base}/dashboard/payments`);
    out.push(await timeFirstRow(page, 'reload', {}, () => page.reload()));
    const statusBox = page.getByLabel('Status');
    out.push(
      await timeFirstRow(page, 'filter', { status: 'success' }, () => statusBox.selectOption('success')),
    );
    out.push(
      await timeFirstRow(page, 'next page', { status: 'success', page: '2' }, () =>
        page.getByRole('button', { name: 'Next' }).click(),
      ),
    );
    await opts.beforeClear?.();
    out.push(await timeFirstRow(page, 'clear filter', {}, () => statusBox.selectOption('')));
  }
  return out;
}

/** The p-th percentile of `xs` (nearest rank; the middle value of three for p = 50). */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function main() {
  const count = Number(process.env.BENCH_TRANSACTIONS ?? 1_000_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_PUBLIC_URL: base,
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_DATA_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
  };
  const engine = process.env.DATABASE_URL ? 'postgres' : 'pglite';
  const { database, cleanup } = await openBenchDatabase(env, 'svc_dash_bench');
  let service: ReturnType<typeof startService> | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    await database.migrate();
    const s = await seed(database, count);
    const password = 'bench-password-1';
    await database.db.execute(
      sql`update accounts set password_hash = ${await hashPassword(password)} where id = ${s.accountId}::uuid`,
    );
    const rows = (await database.db.execute(
      sql`select email from accounts where id = ${s.accountId}::uuid`,
    )) as unknown as {
      rows: { email: string }[];
    };
    const email = rows.rows[0]!.email;
    await database.close(); // PGlite: release the data directory for the service
    service = startService(env);
    await waitReady(base, service);
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/dashboard/payments`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor({ timeout: 60_000 });
    await page.locator('main tbody tr').first().waitFor({ timeout: 60_000 });
    const timings = await firstRowTimings(page, base, rounds);
    for (const t of timings) console.log(`${t.label.padEnd(13)} ${t.ms.toFixed(1)} ms`);
    console.log(`\ndashboard payments list, ${engine}, ${count} transactions, ${rounds} rounds`);
    console.log('first row after the list response (ms):');
    for (const label of [...new Set(timings.map((t) => t.label)), 'all']) {
      const xs = timings.filter((t) => label === 'all' || t.label === label).map((t) => t.ms);
      console.log(
        `  ${label.padEnd(13)} p50 ${pct(xs, 50).toFixed(1)}  max ${Math.max(...xs).toFixed(1)}  (n=${xs.length})`,
      );
    }
  } finally {
    await browser?.close();
    if (service) await stopChild(service);
    await cleanup();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
