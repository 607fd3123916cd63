// The comparison page in a real Chromium (Debian's, driven by playwright-core) against the whole service
// on a loopback port: a session per page (its own context, as axe needs), the GraphQL requests it makes,
// its console errors and CSP violations, and the checks the browser tests share.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { WEB_DIR } from '../../src/http/web.js';
import { createTestApp, type TestApp } from './app.js';
import { launchChromium } from './browser.js';

export const ARTIFACTS = path.resolve('test/artifacts');
export const SCREENSHOTS = path.join(ARTIFACTS, 'screenshots');
/** The widths every view is looked at: a laptop and a phone. */
export const WIDTHS = [1440, 390] as const;

export interface Session {
  page: Page;
  /** console errors, page errors and CSP violations */
  problems: string[];
  /** the operation name of every GraphQL request the page made */
  graphql: string[];
  close(): Promise<void>;
}

export interface PageHarness {
  t: TestApp;
  base: string;
  browser: Browser;
  server: http.Server;
  /** A REST answer of the same service (status 200 expected). */
  api<T = any>(pathAndQuery: string): Promise<T>;
  open(pathAndQuery: string, viewport?: { width?: number; height?: number }): Promise<Session>;
  close(): Promise<void>;
}

export async function startPageHarness(): Promise<PageHarness> {
  if (!existsSync(path.join(WEB_DIR, 'index.html')))
    throw new Error(`the page is not built in ${WEB_DIR}: run npm run build:web (npm test does it first)`);
  await mkdir(SCREENSHOTS, { recursive: true });
  const t = await createTestApp();
  const server = http.createServer(t.app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchChromium();

  async function api<T = any>(pathAndQuery: string): Promise<T> {
    const res = await fetch(base + pathAndQuery);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }

  async function open(pathAndQuery: string, { width = 1440, height = 900 } = {}): Promise<Session> {
    // axe needs a page from a context of its own.
    const context = await browser.newContext({
      viewport: { width, height },
      locale: 'en-US',
      timezoneId: 'UTC',
      acceptDownloads: true,
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    const page = await context.newPage();
    const problems: string[] = [];
    const graphql: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname === '/graphql')
        graphql.push(/^query (\w+)/.exec(url.searchParams.get('query') ?? '')?.[1] ?? '?');
    });
    await page.goto(base + pathAndQuery);
    return { page, problems, graphql, close: () => context.close() };
  }

  return {
    t,
    base,
    browser,
    server,
    api,
    open,
    async close() {
      await browser?.close();
      server?.closeAllConnections(); // change streams a failed test left open
      await new Promise((resolve) => server?.close(resolve));
      await t?.close();
    },
  };
}

/** The page's own queries: the newest changes are asked for once after the first answer, on their own. */
export const ownQueries = (s: Session) => s.graphql.filter((name) => name !== 'LatestChanges');

/** Polls for up to 15 s: some waits include the service's first, cold answer. */
export const poll: typeof expect.poll = (fn, options) =>
  expect.poll(fn, { timeout: 15_000, ...(typeof options === 'number' ? { timeout: options } : options) });

export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  await page.waitForTimeout(250); // anything else the interaction would ask for
}

/** Waits until the page has asked and shown its answer; how many GraphQL requests that took. */
export async function interact(s: Session, action: () => Promise<unknown>): Promise<number> {
  const before = ownQueries(s).length;
  const answered = s.page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/graphql' && !r.url().includes('LatestChanges'),
  );
  await action();
  await answered;
  await settled(s.page);
  expect(s.graphql.filter((name) => name === 'LatestChanges').length).toBeLessThanOrEqual(1);
  return ownQueries(s).length - before;
}

export interface Row {
  id: string;
  headline: string;
  yield: string;
  effective: string;
  returnPerYear: string;
  returnText: string;
  dgs: string;
}

export async function rows(page: Page): Promise<Row[]> {
  await page.waitForSelector('table.offers tbody tr');
  return page.$$eval('table.offers tbody tr', (trs) =>
    trs.map((tr) => {
      const value = (label: string) =>
        (tr.querySelector(`td[data-label="${label}"] data`) as HTMLDataElement | null)?.value ?? '';
      const headline = tr.querySelector('td[data-label="Headline rate"] data.headline') as HTMLDataElement | null;
      return {
        id: (tr.querySelector('button[data-offer]') as HTMLButtonElement).dataset.offer!,
        headline: headline?.value ?? value('Headline rate'),
        yield: value('Comparable yield'),
        effective: value('Net effective rate'),
        returnPerYear: value('Return per year'),
        returnText: tr.querySelector('td[data-label="Return per year"] data')?.textContent ?? '',
        dgs: tr.querySelector('td[data-label="Deposit guarantee"] .badge')?.textContent ?? '',
      };
    }),
  );
}

export const euros = (value: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(value as `${number}`);

export async function expectAccessible(page: Page, where: string): Promise<void> {
  const result = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze();
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map(
      (v) => `${where}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
  ).toEqual([]);
}

export async function shoot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

/**
 * Selects on screen whose longest choice does not fit in them (the text cut off): each choice's text
 * measured in the select's own font, plus its padding and the arrow Chromium draws.
 */
export async function clippedSelects(page: Page): Promise<string[]> {
  return page.$$eval('select', (selects) => {
    const ARROW_PX = 20;
    const context = document.createElement('canvas').getContext('2d')!;
    return selects
      .filter((s) => s.getClientRects().length > 0)
      .flatMap((s) => {
        const style = getComputedStyle(s);
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - ARROW_PX;
        return [...s.options]
          .filter((o) => context.measureText(o.text).width > room)
          .map((o) => `#${s.id}: “${o.text}” needs ${Math.ceil(context.measureText(o.text).width)} px of ${room}`);
      });
  });
}

/** Nothing on the page scrolls sideways, the page itself included. */
export async function sidewaysScrollers(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    if (document.documentElement.scrollWidth > document.documentElement.clientWidth) found.push('the page');
    for (const e of document.querySelectorAll<HTMLElement>('body *')) {
      const overflow = getComputedStyle(e).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && e.scrollWidth > e.clientWidth + 1)
        found.push(`${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`);
    }
    return found;
  });
}
