/**
 * A test app in production mode with Documenso hosting the signing, against the Documenso stand-in
 * (test/standins/documenso), listening on a free port so the stand-in's webhooks and Chromium reach it;
 * and `documensoPageSuite`, the shared preamble of the files that open its pages in Chromium.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { AnyProviderDefinition } from '../../src/providers/definition';
import { createPaymentWorld, type PaymentWorld } from '../payments/fixtures';
import {
  type DocumensoStandin,
  STANDIN_API_KEY,
  STANDIN_WEBHOOK_SECRET,
  startDocumensoStandin,
} from '../standins/documenso/server';
import { createTestApp, type MemoryMailer, PRODUCTION_ENV, type TestContext } from './app';
import { closeInTurn, launchChromium } from './browser';
import { freePort } from './process';

type DocumensoAppOptions = {
  env?: Record<string, string>;
  providerDefinitions?: readonly AnyProviderDefinition[];
};

export async function startDocumensoApp(
  opts: DocumensoAppOptions = {},
): Promise<{ ctx: TestContext; standin: DocumensoStandin; hookUrl: string }> {
  const standin = await startDocumensoStandin({ webhookUrl: null });
  const port = await freePort();
  const ctx = await createTestApp({
    env: {
      ...PRODUCTION_ENV,
      SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SVC_ESIGN_PROVIDER: 'documenso',
      SVC_DOCUMENSO_API_URL: standin.url,
      SVC_DOCUMENSO_API_KEY: STANDIN_API_KEY,
      SVC_DOCUMENSO_WEBHOOK_SECRET: STANDIN_WEBHOOK_SECRET,
      SVC_DOCUMENSO_MAX_ATTEMPTS: '1',
      ...opts.env,
    },
    ...(opts.providerDefinitions ? { providerDefinitions: opts.providerDefinitions } : {}),
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const hookUrl = `http://127.0.0.1:${port}/api/v1/providers/esign/documenso/notifications`;
  standin.control.webhooks.url = hookUrl;
  return { ctx, standin, hookUrl };
}

/** Where the Documenso page tests put their screenshots (none when unset). */
const SHOTS = process.env.DOCUMENSO_SCREENSHOT_DIR;

export interface DocumensoPageSuite {
  ctx: TestContext;
  standin: DocumensoStandin;
  hookUrl: string;
  /** A client with production access, a project and a user (createPaymentWorld). */
  w: PaymentWorld;
  browser: Browser;
  /** One page for the file, 1100x900. */
  page: Page;
  mailer(): MemoryMailer;
  /** A full-page screenshot `<name>.png` into DOCUMENSO_SCREENSHOT_DIR when it is set. */
  shot(name: string): Promise<void>;
  /**
   * Opens `url` (our signing page, behind the email code) and passes the gate: asks for the code
   * (`shotOnAsk`: a screenshot once asked), reads it from `email`'s last mail, enters it.
   */
  passEmailCode(url: string, email: string, shotOnAsk?: string): Promise<void>;
}

/**
 * The shared preamble of the Documenso page tests (contracts/documenso-viewer.browser.test.ts,
 * e2e/documenso-production.test.ts): the app (startDocumensoApp with `opts`), a payment world with
 * production access, one Chromium and one page; afterAll closes them in turn. Call it inside the
 * file's describe: it registers that describe's beforeAll/afterAll, and the suite's fields are set
 * once beforeAll has run.
 */
export function documensoPageSuite(opts: DocumensoAppOptions = {}): DocumensoPageSuite {
  const s = {
    mailer: () => s.ctx.mailer as MemoryMailer,
    async shot(name: string) {
      if (SHOTS) await s.page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
    },
    async passEmailCode(url: string, email: string, shotOnAsk?: string) {
      await s.page.goto(url);
      await s.page.getByRole('button', { name: 'Email me a code' }).click();
      if (shotOnAsk) await s.shot(shotOnAsk);
      const code = /Your code is (\d{6})/.exec(s.mailer().lastTo(email)!.text)![1]!;
      await s.page.fill('#code', code);
      await s.page.getByRole('button', { name: 'Continue' }).click();
    },
  } as DocumensoPageSuite;

  beforeAll(async () => {
    Object.assign(s, await startDocumensoApp(opts));
    s.w = await createPaymentWorld(s.ctx, { productionAccess: true });
    s.browser = await launchChromium();
    s.page = await s.browser.newPage({ viewport: { width: 1100, height: 900 } });
  }, 60_000);

  afterAll(() =>
    closeInTurn({
      browser: () => s.browser?.close(),
      ctx: () => s.ctx?.close(),
      standin: () => s.standin?.close(),
    }),
  );
  return s;
}
