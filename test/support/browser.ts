// Debian's Chromium driven by playwright-core (no browser download). Browser tests skip, saying so, where
// no Chromium is installed — unless REQUIRE_BROWSER is set (CI installs Chromium and sets it), then they fail.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

if (!haveChromium) {
  if (process.env.REQUIRE_BROWSER) throw new Error(`no Chromium at ${CHROMIUM}, and REQUIRE_BROWSER is set`);
  console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
