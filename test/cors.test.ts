// One CORS policy (contract §11.5): every answer a browser page on another origin can get — REST,
// CSV, GraphQL, errors, 304s, preflights, answers from the cache and the rate limiter — lets it read the
// body and the headers it needs, and never invites credentials.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.js';

const ORIGIN = 'https://compare.example.com';
const EXPOSED = [
  'ETag',
  'Link',
  'X-Request-Id',
  'Retry-After',
  'Content-Disposition',
  'RateLimit',
  'RateLimit-Policy',
  'Data-Version',
  'Data-Chain',
  'Memento-Datetime',
];

let t: TestApp;
let server: http.Server;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ days: 3, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  server = http.createServer(t.app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

function expectPolicy(headers: Headers, what: string) {
  expect(headers.get('access-control-allow-origin'), what).toBe('*');
  expect(headers.get('access-control-allow-credentials'), what).toBeNull();
  const exposed = (headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
  for (const name of EXPOSED) expect(exposed, `${what}: ${name}`).toContain(name.toLowerCase());
}

const fromPage = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { origin: ORIGIN, ...(init.headers as Record<string, string>) },
});

describe('every kind of answer, as a page on another origin gets it over the network', () => {
  it.each([
    ['a REST list', '/api/products?amount=1234', {}, 200],
    ['a detail', '/api/products/OFFER', {}, 200],
    ['the CSV export', '/api/products/export?type=deposit', {}, 200],
    ['the OpenAPI document', '/api/openapi.json', {}, 200],
    ['health', '/api/health', {}, 200],
    ['a bad parameter', '/api/products?amount=-1', {}, 400],
    ['an unknown offer', '/api/products/nope', {}, 404],
    ['an unknown path', '/api/nothing', {}, 404],
    ['a method the API does not take', '/api/products', { method: 'DELETE' }, 405],
    [
      'a GraphQL GET',
      '/graphql?query=%7Binstitutions%7Bitems%7Bid%7D%7D%7D',
      { headers: { accept: 'application/json' } },
      200,
    ],
    [
      'a GraphQL POST',
      '/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ meta { dataVersion } }' }),
      },
      200,
    ],
    [
      'a GraphQL error',
      '/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: '{ nope }' }),
      },
      400,
    ],
    ['GraphiQL', '/graphql', { headers: { accept: 'text/html' } }, 200],
  ] as const)('%s', async (what, path, init, status) => {
    const offerId = t.app.services.store.current().offers[0]!.id;
    const url = `${base}${path.replace('OFFER', offerId)}`;
    const first = await fetch(url, fromPage(init as RequestInit));
    expect(first.status, what).toBe(status);
    expectPolicy(first.headers, what);
    await first.arrayBuffer();
    if (status === 200 && !('method' in init)) {
      // Again, now from the cache where it is kept, and revalidated: a 304 is readable too.
      const again = await fetch(url, fromPage(init as RequestInit));
      expectPolicy(again.headers, `${what} (again)`);
      const etag = again.headers.get('etag');
      await again.arrayBuffer();
      if (etag) {
        const revalidated = await fetch(
          url,
          fromPage({
            ...(init as RequestInit),
            headers: { ...((init as RequestInit).headers as Record<string, string>), 'if-none-match': etag },
          }),
        );
        expect(revalidated.status, what).toBe(304);
        expectPolicy(revalidated.headers, `${what} (304)`);
      }
    }
  });

  it('exposes the CSV file name to the page', async () => {
    const res = await fetch(`${base}/api/products/export`, fromPage());
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="savings-offers.csv"');
    await res.arrayBuffer();
  });

  it.each([
    ['/graphql', 'POST', 'content-type, x-request-id', 'GET, POST, HEAD'],
    ['/api/products', 'GET', 'if-none-match', 'GET, HEAD'],
  ])('answers the preflight for %s', async (path, method, wanted, allowed) => {
    const res = await fetch(`${base}${path}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': wanted },
    });
    expect(res.status).toBe(204);
    expectPolicy(res.headers, 'preflight');
    expect(res.headers.get('access-control-allow-methods')).toBe(allowed);
    expect(res.headers.get('access-control-allow-headers')).toBe(wanted);
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });
});

describe('refusals', () => {
  it('a 429 from the rate limiter and a 414 are readable by the page', async () => {
    const limited = await createTestApp({ days: 1, env: { RATE_LIMIT_PER_MINUTE: '2' } });
    const s = http.createServer(limited.app.listener);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    try {
      let last: Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await fetch(`${url}/api/institutions`, fromPage());
        await last.arrayBuffer();
      }
      expect(last!.status).toBe(429);
      expectPolicy(last!.headers, '429');
      const long = await fetch(`${base}/api/products?zoek=${'x'.repeat(9000)}`, fromPage());
      expect(long.status).toBe(414);
      expectPolicy(long.headers, '414');
    } finally {
      await new Promise((resolve) => s.close(resolve));
      await limited.close();
    }
  });
});
