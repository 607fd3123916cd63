// Debian's Chromium driven by playwright-core (no browser download). Browser tests skip, saying why,
// when BROWSER_TESTS=skip (CI's second pass: the pages talk to the API, whatever the database) or when
// no Chromium is installed — unless REQUIRE_BROWSER is set (CI installs Chromium and sets it): then a
// missing Chromium fails the run instead of passing it silently.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function skipReason(): string | null {
  if (process.env.BROWSER_TESTS === 'skip') return 'BROWSER_TESTS=skip';
  if (existsSync(CHROMIUM)) return null;
  const message = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env.REQUIRE_BROWSER) throw new Error(`${message}, and REQUIRE_BROWSER is set`);
  return message;
}

/** Why the browser tests are skipped, or null when they run. */
export const browserSkip = skipReason();
if (browserSkip) console.warn(`\n  ⚠ browser tests skipped: ${browserSkip}\n`);

export function launchChromium(): Promise<Browser> {
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
