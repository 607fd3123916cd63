// The page's files as the service's HTTP front serves them: content types, caching per kind of file,
// validators, encodings, the page's security policy; anything else goes on to the application.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { BodyCache } from './body-cache.js';
import { createHttpHandler, type HttpHandler } from './handler.js';
import { PAGE_CSP } from './security.js';
import { loadWebPage, WEB_CACHE_CONTROL, type WebPage } from './web.js';

let dir: string;
let handler: HttpHandler;
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

/** The HTTP front with the page's files, in front of an application that says what it was asked. */
const front = (page: WebPage) =>
  createHttpHandler({
    upstream: async (request) =>
      new Response(`api ${request.method} ${new URL(request.url).pathname}`, { status: 404 }),
    cache: new BodyCache(1_000_000),
    reuseKey: () => null,
    cacheable: () => true,
    version: () => 1,
    clock: () => new Date(),
    logger: createLogger('silent'),
    requestTimeoutMs: 30_000,
    statics: page.files,
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'web-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(
    path.join(dir, 'index.html'),
    '<!doctype html><html lang="en"><script type="module" src="/assets/index-AbCd1234.js"></script></html>',
  );
  await writeFile(path.join(dir, 'assets', 'index-AbCd1234.js'), SCRIPT);
  await writeFile(path.join(dir, 'assets', 'icon-Zz_9-xYw.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(path.join(dir, 'stray.txt'), 'not part of the page');
  handler = front(await loadWebPage({ dir }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const get = (pathname: string, init?: RequestInit) => handler.fetch(new Request(`http://test.local${pathname}`, init));

describe('the web page', () => {
  it('serves index.html at / (with any query) under a strict CSP, revalidated on every load', async () => {
    const res = await get('/?amount=25000&type=deposit');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe(WEB_CACHE_CONTROL.page);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(PAGE_CSP).toContain("default-src 'self'");
    expect(PAGE_CSP).not.toContain('unsafe');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toMatch(/^W\/"[\w-]+"$/);
    expect(await res.text()).toContain('<html lang="en">');
  });

  it('caches hashed assets for a year as immutable, with their content type', async () => {
    const js = await get('/assets/index-AbCd1234.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe(WEB_CACHE_CONTROL.hashed);
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(js.headers.get('content-security-policy')).toBeNull();
    expect(await js.text()).toBe(SCRIPT);
    const svg = await get('/assets/icon-Zz_9-xYw.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('cache-control')).toBe(WEB_CACHE_CONTROL.hashed);
  });

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)(
    'compresses with %s, with Vary (one weak ETag for every encoding of the same bytes)',
    async (encoding, decode) => {
      const plain = await get('/assets/index-AbCd1234.js');
      const res = await get('/assets/index-AbCd1234.js', { headers: { 'accept-encoding': encoding } });
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
      expect(res.headers.get('etag')).toBe(plain.headers.get('etag'));
      const body = new Uint8Array(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(body.byteLength);
      expect(decode(body).toString()).toBe(SCRIPT);
    },
  );

  it('answers 304 to a matching If-None-Match (weak comparison, lists, *) without a body', async () => {
    const first = await get('/', { headers: { 'accept-encoding': 'gzip' } });
    const etag = first.headers.get('etag')!;
    for (const ifNoneMatch of [etag, etag.replace(/^W\//, ''), `"other", ${etag}`, '*']) {
      const res = await get('/', { headers: { 'if-none-match': ifNoneMatch, 'accept-encoding': 'gzip' } });
      expect(res.status).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('cache-control')).toBe(WEB_CACHE_CONTROL.page);
      expect(await res.text()).toBe('');
    }
    expect((await get('/', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await get('/assets/index-AbCd1234.js', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(SCRIPT.length));
    expect(await res.text()).toBe('');
  });

  it.each([
    ['an unknown asset', 'GET', '/assets/missing-12345678.js'],
    ['a file outside the page', 'GET', '/stray.txt'],
    ['a path that climbs out', 'GET', '/assets/../stray.txt'],
    ['another method', 'POST', '/'],
    ['the API', 'GET', '/api/products'],
  ])('leaves %s to the API', async (_name, method, pathname) => {
    const res = await handler.fetch(new Request(`http://test.local${pathname}`, { method }));
    expect(await res.text()).toMatch(/^api /);
  });

  it('lets the API answer / when the page is not built', async () => {
    const empty = await loadWebPage({ dir: path.join(dir, 'nothing-here') });
    expect(empty.built).toBe(false);
    const res = await front(empty).fetch(new Request('http://test.local/'));
    expect(await res.text()).toBe('api GET /');
  });
});
