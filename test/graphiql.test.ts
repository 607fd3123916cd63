// GraphiQL as a browser gets it: a real HTML page (Content-Type, no placeholders), assets from this
// server only, the example query for 25,000 euros in the editor, a favicon, and a query that runs —
// in Chromium, with no console errors.
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

describe('the GraphiQL page over HTTP', () => {
  it('is HTML with its Content-Type, every placeholder filled, and a favicon', async () => {
    const page = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).not.toMatch(/__[A-Z]+__/);
    expect(html).not.toMatch(/<script>|<style>|style=/); // nothing inline: the page works under a CSP of 'self'
    const icon = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(html)?.[1];
    expect(icon).toBeDefined();
    const favicon = await fetch(`${base}${icon}`);
    expect(favicon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await favicon.text()).toMatch(/^<svg /);
  });
});

describe.skipIf(browserSkip !== null)('GraphiQL in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens with the example query in the editor and runs it, without a console error', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    // 'load', not 'networkidle': Monaco starts and ends its workers as it likes, and a worker ended while
    // its script loads leaves a request Playwright never sees finish, so the network is never idle.
    await page.goto(`${base}/graphql`, { waitUntil: 'load' });
    expect(await page.title()).toMatch(/GraphiQL/);
    const editor = page.locator('.graphiql-query-editor');
    // Monaco shows spaces as no-break spaces.
    await expect
      .poll(async () => (await editor.innerText()).replace(/\u00a0/g, ' '), { timeout: 15_000 })
      .toContain('products(amount: "25000", type: ALL, pageSize: 5)');
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(() => response.innerText(), { timeout: 15_000 }).toContain('"total"');
    const shown = await response.innerText();
    expect(shown).toContain('"returnPerYear"');
    expect(shown).not.toContain('"errors"');
    expect(problems).toEqual([]);
    await context.close();
  });
});
