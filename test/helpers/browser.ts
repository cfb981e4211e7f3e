/** Headless Chromium for the tests of the HTML pages (Debian's chromium, driven by playwright-core). */
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`[browser tests skipped] no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

/** The flags keep Chromium off the network (this machine's network is closed) and out of any profile. */
export function launchChromium(): Promise<Browser> {
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
