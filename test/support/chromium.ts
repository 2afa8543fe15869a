import { chromium, type Browser } from 'playwright-core';
import { requireBinaries } from './binaries.ts';

/** Debian's Chromium (CI installs it: `apt-get install -y chromium`, see .ci/run). */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium with the flags this closed network needs; a clear error when it is missing. */
export function launchChromium(): Promise<Browser> {
  requireBinaries('chromium');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
