// Safe headers on every kind of answer (issue 19): nosniff and a Referrer-Policy everywhere; on every
// HTML page a Content-Security-Policy that allows nothing but this origin — and the pages still work
// under it in Chromium (no violation, no console error).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip, launchChromium } from './support/browser.js';
import { createTestApp, type TestApp } from './support/app.js';

let t: TestApp;
let server: http.Server;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ days: 3 });
  server = http.createServer(t.app.listener);
  server.on('clientError', t.app.clientError);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

const KINDS: [string, string, RequestInit?][] = [
  ['a JSON list', '/api/products?amount=4321'],
  ['a detail', '/api/products/OFFER'],
  ['the CSV export', '/api/products/export?type=deposit'],
  ['a problem', '/api/products?amount=-1'],
  ['a 404', '/api/nothing'],
  ['health', '/api/health'],
  ['the OpenAPI document', '/api/openapi.json'],
  ['Prometheus metrics', '/metrics'],
  ['GraphQL', '/graphql?query=%7Bmeta%7BdataVersion%7D%7D', { headers: { accept: 'application/json' } }],
  [
    'a GraphQL POST',
    '/graphql',
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ meta { stale } }"}' },
  ],
  ['a GraphiQL asset', '/graphiql/start.js'],
  [
    'a preflight',
    '/graphql',
    { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' } },
  ],
];

describe('every kind of answer', () => {
  it.each(KINDS)(
    '%s carries nosniff and a Referrer-Policy (and no CSP unless it is HTML)',
    async (what, path, init) => {
      const url = `${base}${path.replace('OFFER', t.app.services.store.current().offers[0]!.id)}`;
      for (const attempt of ['first', 'again']) {
        const res = await fetch(url, init);
        await res.arrayBuffer();
        expect(res.headers.get('x-content-type-options'), `${what} (${attempt})`).toBe('nosniff');
        expect(res.headers.get('referrer-policy'), `${what} (${attempt})`).toBe('no-referrer');
        expect(res.headers.get('content-security-policy'), what).toBeNull();
        const etag = res.headers.get('etag');
        if (etag && attempt === 'again' && res.headers.get('cache-control') !== 'no-store') {
          const notModified = await fetch(url, {
            ...init,
            headers: { ...(init?.headers as Record<string, string>), 'if-none-match': etag },
          });
          expect(notModified.status).toBe(304);
          expect(notModified.headers.get('x-content-type-options'), `${what} (304)`).toBe('nosniff');
        }
      }
    },
  );
});

const PAGES: [string, string, RequestInit?][] = [
  ['the API reference', '/api/docs'],
  ['the calculation guide', '/api/docs/calculation'],
  ['GraphiQL', '/graphql', { headers: { accept: 'text/html' } }],
];

/** The origins a CSP lets a page load from: only 'self' (and, for GraphiQL's editor, inline styles and data: fonts). */
function onlyThisOrigin(csp: string) {
  const directives = Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  );
  expect(directives['default-src']).toEqual(["'self'"]);
  expect(directives['script-src']).toEqual(["'self'"]);
  expect(directives['frame-ancestors']).toEqual(["'none'"]);
  for (const values of Object.values(directives))
    for (const v of values as string[]) expect(v).not.toMatch(/^(https?:|\*|'unsafe-eval')/);
  return directives;
}

describe('every HTML page', () => {
  it.each(PAGES)('%s has a CSP that allows only this origin', async (_what, path, init) => {
    const res = await fetch(`${base}${path}`, init);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const directives = onlyThisOrigin(res.headers.get('content-security-policy')!);
    if (path !== '/graphql') expect(directives['style-src']!.join(' ')).not.toContain('unsafe');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  describe.skipIf(browserSkip !== null)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it.each(PAGES)('%s shows without a CSP violation or console error', async (_what, path) => {
      const context = await browser.newContext();
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) =>
          console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
        );
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      // 'load', not 'networkidle', which GraphiQL may never reach (see graphiql.test.ts).
      await page.goto(`${base}${path}`, { waitUntil: 'load' });
      // Our pages' own style applies (a CSP that blocked it would leave the browser's default font);
      // GraphiQL shows its editor, then has the time it takes to start its workers for a violation to show.
      if (path === '/graphql') {
        await page.locator('.graphiql-query-editor').waitFor({ timeout: 15_000 });
        await page.waitForTimeout(2_000);
        expect(await page.locator('.graphiql-query-editor').count()).toBe(1);
      } else {
        await page.waitForTimeout(200);
        expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toMatch(/system-ui/i);
      }
      expect(problems).toEqual([]);
      await context.close();
    });
  });
});
