/** Headless Chromium for the tests of the HTML pages (Debian's chromium, driven by playwright-core). */
import fs from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`[browser tests skipped] no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

/** The flags keep Chromium off the network (this machine's network is closed) and out of any profile. */
function launchShared(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** One Chromium per test worker, started by the first file that asks (see launchChromium). */
let shared: Promise<Browser> | null = null;

/**
 * A headless Chromium for one test file. The worker's files share one Chromium process (a launch
 * was about 1.5 s of CPU on a typical machine, 22 files launched one each): each file gets a lease
 * of it, whose `newContext` and `newPage` open contexts of the file's own (cookies, storage and
 * cache are per context), and whose `close()` closes those contexts only. Chromium itself ends
 * with the worker (Playwright kills the browsers it launched when the process exits); a Chromium
 * that crashed or was disconnected is launched again for the next file.
 */
export async function launchChromium(): Promise<Browser> {
  shared ??= launchShared().catch((err) => {
    shared = null;
    throw err;
  });
  let browser = await shared;
  if (!browser.isConnected()) {
    shared = launchShared();
    browser = await shared;
  }
  const real = browser;
  const opened = new Set<BrowserContext>();
  const track = (context: BrowserContext) => {
    opened.add(context);
    context.once('close', () => opened.delete(context));
    return context;
  };
  const lease: Partial<Browser> = {
    newContext: async (options) => track(await real.newContext(options)),
    // Browser.newPage opens a context owned by the page: the lease opens it itself so close() finds it.
    newPage: async (options) => {
      const context = track(await real.newContext(options));
      const page = await context.newPage();
      page.once('close', () => void context.close().catch(() => undefined));
      return page;
    },
    contexts: () => [...opened],
    close: async () => {
      await Promise.all([...opened].map((c) => c.close().catch(() => undefined)));
    },
  };
  return new Proxy(real, {
    get(target, prop, receiver) {
      if (prop in lease) return lease[prop as keyof Browser];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Teardown that cannot hang a file's afterAll: the steps run in order, each bounded by `ms`. A step
 * that overruns is named on stderr and left behind (its process goes with the test worker). The app's
 * close waits for every busy connection, for example one whose response body a test never read.
 */
export async function closeInTurn(
  steps: Record<string, (() => Promise<unknown> | unknown) | undefined>,
  ms = 15_000,
): Promise<void> {
  for (const [label, step] of Object.entries(steps)) {
    if (!step) continue;
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<'overran'>((resolve) => {
      timer = setTimeout(() => resolve('overran'), ms);
    });
    try {
      const outcome = await Promise.race([Promise.resolve().then(step), overran]);
      if (outcome === 'overran')
        console.warn(`[teardown] ${label} did not finish within ${ms} ms; moving on`);
    } catch (err) {
      console.warn(`[teardown] ${label} failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
