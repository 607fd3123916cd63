// What an operator sees (contract §11.5): Prometheus metrics at /metrics, labelled by route template;
// and, with a rate limit on, every counted answer says where the client stands (RateLimit-Policy,
// RateLimit), while health checks and scrapes are never counted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.js';
import { sample } from './support/metrics.js';

async function serve(t: TestApp): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer(t.app.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('GET /metrics', () => {
  let t: TestApp;
  let s: { base: string; close(): Promise<void> };
  beforeAll(async () => {
    t = await createTestApp({ days: 3 });
    s = await serve(t);
  });
  afterAll(async () => {
    await s?.close();
    await t?.close();
  });

  it('counts answers by route template and status, with durations, caches, data and the process', async () => {
    const offers = t.app.services.store.current().offers.slice(0, 12);
    for (const offer of offers) await (await fetch(`${s.base}/api/products/${offer.id}`)).arrayBuffer();
    await (await fetch(`${s.base}/api/products/${offers[0]!.id}`)).arrayBuffer(); // from the cache, counted too
    await (await fetch(`${s.base}/api/products?amount=-1`)).arrayBuffer();
    await (await fetch(`${s.base}/graphql?query=%7Bmeta%7BdataVersion%7D%7D`)).arrayBuffer();

    const res = await fetch(`${s.base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(sample(text, 'http_requests_total', { route: '/api/products/{id}', method: 'GET', status: '200' })).toBe(13);
    expect(sample(text, 'http_requests_total', { route: '/api/products', method: 'GET', status: '400' })).toBe(1);
    expect(sample(text, 'http_requests_total', { route: '/graphql', method: 'GET', status: '200' })).toBe(1);
    expect(text).not.toMatch(/route="\/api\/products\/[a-z0-9-]+"/); // one series per template, not per offer
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/api/products/{id}', method: 'GET' })).toBe(
      13,
    );
    expect(sample(text, 'savings_cache_size', { cache: 'bodies', what: 'entries' })).toBeGreaterThan(0);
    expect(sample(text, 'savings_cache_events_total', { cache: 'bodies', event: 'hits' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'savings_data_version')).toBe(t.app.services.store.current().version);
    expect(sample(text, 'savings_data_age_seconds')).toBe(6 * 3600);
    for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes'])
      expect(sample(text, name), name).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
  });
});

describe('rate limit headers', () => {
  let t: TestApp;
  let s: { base: string; close(): Promise<void> };
  beforeAll(async () => {
    t = await createTestApp({ days: 2, env: { RATE_LIMIT_PER_MINUTE: '5' } });
    s = await serve(t);
  });
  afterAll(async () => {
    await s?.close();
    await t?.close();
  });

  it(
    'tells the client its quota and what is left on every counted answer, the 429 included; health and metrics ' +
      'are not counted',
    async () => {
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${s.base}/api/institutions`);
        await res.arrayBuffer();
        expect(res.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
        remaining.push(res.headers.get('ratelimit')!);
        // Probes and scrapes in between take nothing from the quota and say nothing of it.
        for (const probe of ['/api/health', '/metrics']) {
          const p = await fetch(`${s.base}${probe}`);
          await p.arrayBuffer();
          expect(p.status, probe).toBe(200);
          expect(p.headers.get('ratelimit'), probe).toBeNull();
        }
      }
      expect(remaining.map((r) => /;r=(\d+);/.exec(r)?.[1])).toEqual(['4', '3', '2']);
      for (const r of remaining) expect(r).toMatch(/^"default";r=\d+;t=\d+$/);
      let last: Response | undefined;
      for (let i = 0; i < 3; i++) {
        last = await fetch(`${s.base}/api/products`);
        await last.arrayBuffer();
      }
      expect(last!.status).toBe(429);
      expect(last!.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    },
  );
});
