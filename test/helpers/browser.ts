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
