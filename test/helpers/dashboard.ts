/**
 * Dashboard browser tests: builds the dashboard once when its build is missing or stale (the same
 * script as `npm run build`), and checks a page with axe-core (no serious or critical violation).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createTestApp, type TestContext } from './app';
import { closeInTurn, launchChromium } from './browser';
import { freePort } from './process';
import { type SmtpCapture, startSmtpCapture } from './smtp';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const DASHBOARD_DIST = path.join(ROOT, 'packages/dashboard/dist');
export const SHOTS_DIR = path.join(ROOT, 'test-results/dashboard-shots');

export function ensureDashboardBuilt() {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--dashboard-only', '--if-stale'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** Gzip bytes of the JavaScript index.html loads up front (the entry and its modulepreloads). */
export function initialJsGzipBytes(): number {
  const html = fs.readFileSync(path.join(DASHBOARD_DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  return files.reduce((n, f) => n + gzipSync(fs.readFileSync(path.join(DASHBOARD_DIST, f))).length, 0);
}

/** Test files whose dashboard shell (top bar, main navigation, page frame) axe has already checked. */
const shellChecked = new Set<string>();

/**
 * Legacy mode runs axe once in the page (same-origin frames included) instead of running it per
 * frame and merging the parts in a blank page it opens for each check; the dashboard's pages have
 * no cross-origin frames, so the findings are the same at a fraction of the cost.
 *
 * The first check of a file covers the whole page; later ones cover the page's own content
 * (`#main`), since the shell around it is the same markup on every page and was checked once: that
 * took about 45% off axe's time on a file of 14 checks. A dialog open outside `#main` (the
 * re-login dialog) and pages without `#main` (sign-in, docs) are always checked whole.
 */
export async function expectAccessible(page: Page, label: string) {
  const file = expect.getState().testPath ?? '';
  const { hasMain, dialogOutsideMain } = await page.evaluate<{
    hasMain: boolean;
    dialogOutsideMain: boolean;
  }>(
    "({ hasMain: !!document.getElementById('main'), dialogOutsideMain: !!document.querySelector('dialog[open]:not(#main dialog)') })",
  );
  const contentOnly = shellChecked.has(file) && hasMain && !dialogOutsideMain;
  // Only violations are needed: axe then does not gather every node of the passed and incomplete checks.
  const builder = new AxeBuilder({ page });
  if (contentOnly) builder.include('#main');
  const result = await builder
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
  if (!contentOnly && hasMain) shellChecked.add(file);
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(bad, `axe on ${label}`).toEqual([]);
}

/**
 * Taken by default on a development machine, where people look at them; CI (`CI` set) skips them
 * unless `DASHBOARD_SCREENSHOTS=1`: nobody reads them there, and they were a tenth of a page file's CPU.
 */
const TAKE_SCREENSHOTS = !process.env.CI || process.env.DASHBOARD_SCREENSHOTS === '1';

/** Full-page screenshots at desktop and phone width into the gitignored test-results folder. */
export async function screenshots(page: Page, name: string) {
  if (!TAKE_SCREENSHOTS) return;
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: path.join(SHOTS_DIR, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(size);
}

export interface DashboardService {
  ctx: TestContext;
  smtp: SmtpCapture;
  browser: Browser;
  /** http://127.0.0.1:<port>, also the service's SVC_PUBLIC_URL. */
  base: string;
  close(): Promise<void>;
}

/** The built dashboard served by a listening test app (mail captured) and a headless Chromium. */
export async function startDashboardService(env: Record<string, string> = {}): Promise<DashboardService> {
  ensureDashboardBuilt();
  const smtp = await startSmtpCapture();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestApp({ mailer: smtp.mailer, env: { ...env, SVC_PUBLIC_URL: base } });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const browser = await launchChromium();
  return {
    ctx,
    smtp,
    browser,
    base,
    close: () =>
      closeInTurn({ browser: () => browser.close(), app: () => ctx.close(), smtp: () => smtp.close() }),
  };
}
