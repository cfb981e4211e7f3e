/**
 * The shared preamble of the dashboard's browser test files: the built dashboard served by a
 * listening test app (mail captured), one headless Chromium for the file, an owner registered and
 * verified through the API, and pages signed in without the login form.
 *
 * `signedIn` gives a new browser context (its own tab storage) already signed in: a session is
 * started on the server for the account (the same call a password login ends with, without the
 * password hash check) and its refresh token is put in the tab's sessionStorage before the app
 * loads, as a reload of a signed-in tab would find it. The app then restores the session from it
 * (docs/guides/dashboard.md, "Dashboard session"). One test per file walks the login form itself
 * (`signInWithForm`), so the form stays covered where it matters.
 */
import { eq } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, onTestFailed } from 'vitest';
import { accounts } from '../../src/db/schema/index';
import { startSession } from '../../src/modules/auth/sessions/sessions.service';
import type { TestContext } from './app';
import { type Registered, registerVerified } from './auth-flow';
import { type DashboardService, startDashboardService } from './dashboard';

/** The dashboard's sessionStorage key for the refresh token (packages/dashboard/src/session.tsx). */
const REFRESH_KEY = 'svc.dashboard.refresh';

export interface SignedInPage {
  page: Page;
  context: BrowserContext;
}

export interface SignInOptions {
  /** Who signs in: the file's owner unless given. */
  email?: string;
  viewport?: { width: number; height: number };
  /** Installs Playwright's page clock (time flows, and a test can jump it with page.clock.fastForward). */
  clock?: boolean;
  /** Runs on the new page before it opens the dashboard (listeners, routes). */
  prepare?: (page: Page) => unknown;
}

export const heading1 = (page: Page, name: string | RegExp) =>
  page.getByRole('heading', { level: 1, name }).waitFor();

/** On a failed test: the page's URL and its alerts, where the reason usually is. */
function reportOnFailure(page: Page) {
  onTestFailed(async () => {
    console.log(
      'url:',
      page.url(),
      'alerts:',
      await page
        .getByRole('alert')
        .allTextContents()
        .catch(() => []),
    );
  });
}

/**
 * Registers the file's beforeAll/afterAll and returns the suite; its fields are set once beforeAll
 * has run. `env` goes to the service (SVC_PUBLIC_URL is the listening address).
 */
export function dashboardSuite(opts: { env?: Record<string, string> } = {}) {
  let svc: DashboardService | undefined;
  let owner: Registered | undefined;
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`dashboardSuite: ${what} is used before beforeAll ran`);
    return v;
  };

  beforeAll(async () => {
    svc = await startDashboardService(opts.env);
    owner = await registerVerified(svc.ctx, svc.smtp);
  }, 180_000);
  afterAll(() => svc?.close());

  const service = () => ready(svc, 'the service');
  const theOwner = () => ready(owner, 'the owner');
  return {
    get svc(): DashboardService {
      return service();
    },
    get ctx(): TestContext {
      return service().ctx;
    },
    get base(): string {
      return service().base;
    },
    get browser(): Browser {
      return service().browser;
    },
    get owner(): Registered {
      return theOwner();
    },

    /** A new context whose first tab opens `at` (under /dashboard) signed in, once heading 1 shows. */
    async signedIn(at: string, heading: string | RegExp, o: SignInOptions = {}): Promise<SignedInPage> {
      const email = o.email ?? theOwner().email;
      const { ctx, browser } = service();
      const [account] = await ctx.db.select().from(accounts).where(eq(accounts.email, email));
      if (!account) throw new Error(`no account ${email}`);
      const tokens = await startSession(ctx.deps, ctx.deps.db, account, ctx.clock.now());
      const context = await browser.newContext({
        viewport: o.viewport ?? { width: 1280, height: 800 },
      });
      // Once per tab: a later navigation keeps the rotated token the app stored, and a sign-out stays one.
      await context.addInitScript({
        content: `if (!sessionStorage.getItem('svc.test.seeded')) {
          sessionStorage.setItem('svc.test.seeded', '1');
          sessionStorage.setItem(${JSON.stringify(REFRESH_KEY)}, ${JSON.stringify(tokens.refresh_token)});
        }`,
      });
      if (o.clock) await context.clock.install();
      const page = await context.newPage();
      reportOnFailure(page);
      await o.prepare?.(page);
      await page.goto(`${service().base}/dashboard${at}`);
      await heading1(page, heading);
      return { page, context };
    },

    /** A new context that signs in through the login form at `at` (the path walks the form). */
    async signInWithForm(
      at: string,
      heading: string | RegExp,
      who: { email: string; password: string } = theOwner(),
      o: Omit<SignInOptions, 'email'> = {},
    ): Promise<SignedInPage> {
      const context = await service().browser.newContext({
        viewport: o.viewport ?? { width: 1280, height: 800 },
      });
      const page = await context.newPage();
      reportOnFailure(page);
      await page.goto(`${service().base}/dashboard${at}`);
      await page.getByLabel('Email').fill(who.email);
      await page.getByLabel('Password').fill(who.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await heading1(page, heading);
      return { page, context };
    },
  };
}
