// Correctness under caching: new data means new answers and new ETags, a reload never tears an
// answer, the caches stay within their limits, and the node fast path answers like the slow one.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGraphqlReuse } from '../src/graphql/reuse-key.js';
import { planMemory } from '../src/memory.js';
import { BodyCache, ENTRY_BYTES } from '../src/http/body-cache.js';
import { createLogger } from '../src/logger.js';
import { createRestFacade } from '../src/rest/facade.js';
import { bodyResponse, CACHE_CONTROL, etagOf, finish, type FinishedBody } from '../src/http/layer.js';
import { applySnapshot } from '../src/ingest/apply.js';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { createTestApp, SAMPLE, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

function lastSampleDay(): Snapshot {
  let last: Snapshot | undefined;
  for (const s of generateSnapshots(SAMPLE)) last = s;
  return last!;
}

/** Applies the sample's last day again, an hour later, with one offer's rate changed. */
async function ingestRateChange(offerId: string, headlineRate: string, hoursLater: number): Promise<void> {
  const snapshot = structuredClone(lastSampleDay());
  snapshot.observedAt = new Date(Date.parse(snapshot.observedAt) + hoursLater * 3_600_000).toISOString();
  const offer = snapshot.offers.find((o) => o.id === offerId)!;
  offer.plan = {
    ...offer.plan,
    headlineRate,
    tiers: [{ from: '0.00', to: null, rate: headlineRate }],
    tierMode: 'whole',
    promotion: null,
  };
  await applySnapshot(t.db.prisma, snapshot);
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('new data', () => {
  it('gives the next answer the new rate and a new ETag, within seconds of the ingest', async () => {
    const offer = t.app.services.store.current().offers.find((o) => o.type === 'flexible')!;
    const path = `/api/products/${offer.id}`;
    const before = await t.get(path);
    const oldEtag = before.headers.get('etag')!;
    const oldRate = ((await before.json()) as { offer: { headlineRate: string } }).offer.headlineRate;
    expect((await t.get(path, { headers: { 'if-none-match': oldEtag } })).status).toBe(304); // cached, unchanged

    const newRate = oldRate === '4.44' ? '4.45' : '4.44';
    await ingestRateChange(offer.id, newRate, 1);
    const after = await until(
      async () => {
        const res = await t.get(path);
        return { etag: res.headers.get('etag'), body: (await res.json()) as { offer: { headlineRate: string } } };
      },
      (r) => r.body.offer.headlineRate === newRate,
    );
    expect(after.body.offer.headlineRate).toBe(newRate);
    expect(after.etag).not.toBe(oldEtag);
    // The old validator no longer matches: a client holding it gets the new body.
    const revalidated = await t.get(path, { headers: { 'if-none-match': oldEtag } });
    expect(revalidated.status).toBe(200);
    const changes = (await (await t.get('/api/changes?limit=5')).json()) as {
      items: { offerId: string; to: { headlineRate?: string } | null }[];
    };
    expect(changes.items.some((e) => e.offerId === offer.id && e.to?.headlineRate === newRate)).toBe(true);
  });

  it('never mixes two data versions in one answer while it reloads', async () => {
    const offer = t.app.services.store
      .current()
      .offers.find((o) => o.type === 'flexible' && o.id !== t.app.services.store.current().offers[0]!.id)!;
    const query = `/api/products?type=flexible&brand=${offer.brand.id}&fullDgs=false&pageSize=500`;
    const read = async () => {
      const body = (await (await t.get(query, { headers: { 'x-force': String(Math.random()) } })).json()) as {
        generatedAt: string;
        items: { id: string; headlineRate: string }[];
      };
      return { generatedAt: body.generatedAt, rate: body.items.find((i) => i.id === offer.id)!.headlineRate };
    };
    const old = await read();
    await ingestRateChange(offer.id, '0.07', 2);
    // Many readers racing the reload: each answer is all old or all new.
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 15));
        return read();
      }),
    );
    const fresh = await until(read, (r) => r.rate === '0.07');
    for (const a of [...answers, fresh]) {
      expect([old.generatedAt, fresh.generatedAt]).toContain(a.generatedAt);
      expect(a.rate).toBe(a.generatedAt === fresh.generatedAt ? '0.07' : old.rate);
    }
    expect(fresh.generatedAt).not.toBe(old.generatedAt);
  });
});

describe('the body cache', () => {
  const entry = (size: number): FinishedBody => {
    const body = new Uint8Array(size).fill(65);
    return {
      status: 200,
      headers: [['content-type', 'application/json']],
      cacheControl: 'no-cache',
      vary: 'Accept-Encoding',
      body,
      etag: etagOf(body),
      encoded: {},
    };
  };

  it("keeps an answer's bytes as the route made them, a small one copied out of Node's shared pool", async () => {
    const small = Buffer.from('{"a":1}', 'utf8') as Uint8Array<ArrayBuffer>;
    expect(small.buffer.byteLength).toBeGreaterThan(small.byteLength); // a slice of the pool
    const kept = await finish(bodyResponse(small, { headers: { 'content-type': 'application/json' } }));
    expect(Buffer.from(kept.body).toString()).toBe('{"a":1}');
    expect(kept.body.buffer.byteLength).toBe(kept.body.byteLength);
    expect(kept.etag).toBe(etagOf(small));
    const large = new Uint8Array(64 * 1024).fill(65);
    expect((await finish(bodyResponse(large, {}))).body).toBe(large);
  });

  it('reads as its bytes where something reads the body, leaving them and their pool as they were', async () => {
    const small = Buffer.from('{"b":2}', 'utf8') as Uint8Array<ArrayBuffer>;
    const neighbour = Buffer.from('pooled', 'utf8'); // likely the same 8 KB slab
    const response = bodyResponse(small, { status: 404, headers: { 'content-type': 'application/json' } });
    expect(await response.json()).toEqual({ b: 2 });
    expect(Buffer.from(small).toString()).toBe('{"b":2}');
    expect(small.buffer.byteLength).toBeGreaterThan(0); // not handed over (detached)
    expect(neighbour.toString()).toBe('pooled');
    const large = new Uint8Array(64 * 1024).fill(66);
    const copy = bodyResponse(large, {}).clone();
    expect(new Uint8Array(await copy.arrayBuffer())).toEqual(large);
    expect(large.byteLength).toBe(64 * 1024);
  });

  it('evicts the least recently used when its bytes are used up (issue 15: bytes, not entry counts)', () => {
    const size = 10 + 2 + ENTRY_BYTES; // a body of 10 bytes, its one-letter key (UTF-16) and the entry's bookkeeping
    const cache = new BodyCache(4 * size);
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, entry(10));
    cache.get('a'); // a is now the most recent
    cache.set('e', entry(10));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.stats()).toMatchObject({ entries: 4, bytes: 4 * size, evictions: 1 });
  });

  it('counts its keys: distinct 8 KB keys fill it by their bytes, not by their number', () => {
    const cache = new BodyCache(1_000_000);
    cache.set('k', entry(10));
    const one = cache.stats().bytes;
    cache.set(`k${'x'.repeat(8191)}`, entry(10));
    expect(cache.stats().bytes - one).toBe(one + 2 * 8191);
    for (let i = 0; i < 1000; i++) cache.set(`${i}${'x'.repeat(8188)}`, entry(10));
    expect(cache.stats().bytes).toBeLessThanOrEqual(1_000_000);
    expect(cache.stats().entries).toBeLessThan(1_000_000 / (2 * 8192));
  });

  it('evicts beyond its byte limit, counting compressed forms, and refuses answers too big to share it', () => {
    const cache = new BodyCache(40_000);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, entry(6_000));
    expect(cache.stats().bytes).toBeLessThanOrEqual(40_000);
    expect(cache.stats().evictions).toBeGreaterThan(0);
    cache.set('huge', entry(10_000));
    expect(cache.get('huge')).toBeUndefined();
    const before = cache.stats().bytes;
    const k9 = cache.get('k9')!;
    k9.encoded.gzip = new Uint8Array(400);
    cache.grew('k9');
    expect(cache.stats().bytes).toBe(before + 400);
    expect(cache.get('k9')).toBe(k9);
    // grown beyond a quarter of the cache, it goes like an answer that big would
    k9.encoded.br = new Uint8Array(2_000);
    cache.grew('k9');
    expect(cache.get('k9')).toBeUndefined();
    expect(cache.stats().bytes).toBeLessThanOrEqual(before);
  });

  describe('keys: one per normalised request', () => {
    const rest = createRestFacade({ logger: createLogger('silent') });
    const key = (path: string) => rest.reuseKey(path)?.key ?? null;

    it.each([
      ['/api/products?type=deposit&amount=1000', '/api/products?amount=1000&type=deposit', true],
      ['/api/products?amount=1000&country=', '/api/products?amount=1000', true],
      ['/api/products?amount=50000&type=flexible&pageSize=50', '/api/products', true],
      ['/api/products?type=all&terms=24,12', '/api/products?terms=12,24&type=ALL', true],
      ['/api/products?amount=1000', '/api/products?amount=1001', false],
      ['/api/products/abc?amount=10', '/api/products/abd?amount=10', false],
    ])('keys %s and %s alike: %s', (a, b, same) => {
      expect(key(a)).not.toBeNull();
      expect(key(a) === key(b)).toBe(same);
    });

    it(
      'reuses what depends on the clock for a minute at most, and never health, the export, metrics, bad or ' +
        'unknown requests',
      () => {
        const graphqlReuseKey = createGraphqlReuse(64 * 1024).reuseKey;
        expect(rest.reuseKey('/api/products')?.reuse).toBe('version');
        expect(rest.reuseKey('/api/products?freshness=24h')?.reuse).toBe('minute');
        expect(rest.reuseKey('/api/meta/last-updated')?.reuse).toBe('minute');
        expect(graphqlReuseKey('/graphql?query={products{total}}', '*/*')?.reuse).toBe('minute');
        expect(graphqlReuseKey('/graphql?query={products{total}}', 'text/html')?.key).not.toBe(
          graphqlReuseKey('/graphql?query={products{total}}', 'application/json')?.key,
        );
        expect(graphqlReuseKey('/graphql?query={products{total}}', 'application/graphql-response+json')?.key).not.toBe(
          graphqlReuseKey('/graphql?query={products{total}}', 'application/json')?.key,
        );
        expect(graphqlReuseKey('/graphql?query={health{status}}', 'application/json')).toBeNull();
        for (const path of [
          '/api/health',
          '/api/products/export?type=all',
          '/api/metrics',
          '/api/products?amount=-1',
          '/api/nothing',
          '/nothing',
        ]) {
          expect(rest.reuseKey(path), path).toBeNull();
        }
      },
    );
  });

  describe('GraphQL GET keys: what yoga reads of the URL, nothing else', () => {
    const { reuseKey } = createGraphqlReuse(64 * 1024);
    const key = (url: string) => reuseKey(url, 'application/json')?.key ?? null;

    it.each([
      ['/graphql?query={a}&x=1&j=junk', '/graphql?query={a}&x=2', true],
      ['/graphql?variables={}&query={a}', '/graphql?query={a}&variables={}', true],
      ['/graphql?query={a}&query={b}', '/graphql?query={a}', true], // yoga takes the first
      ['/graphql?query=&query={b}', '/graphql', true], // … and an empty first one as none
      ['/graphql?x=1', '/graphql?x=2', true],
      ['/graphql?query={a}', '/graphql?query={b}', false],
      ['/graphql?query={a}&operationName=A', '/graphql?query={a}', false],
      ['/graphql?query={a}&extensions={}', '/graphql?query={a}', false],
    ])('keys %s and %s alike: %s', (a, b, same) => {
      expect(key(a) === key(b)).toBe(same);
    });

    it('keeps its memo within its bytes, keys counted, and reuses nothing for a giant Accept', () => {
      const reuse = createGraphqlReuse(256 * 1024);
      for (let i = 0; i < 1000; i++) reuse.reuseKey(`/graphql?x=${i}&j=${'x'.repeat(8000)}`, '*/*');
      const { bytes, maxBytes, entries } = reuse.stats();
      expect(bytes).toBeLessThanOrEqual(maxBytes);
      expect(entries).toBeLessThanOrEqual(Math.ceil(maxBytes / (2 * 8000)));
      expect(reuse.reuseKey('/graphql?query={a}', `application/json, ${'x/y, '.repeat(200)}`)).toBeNull();
    });
  });

  it('keeps no GraphQL answer with errors, whatever its status', async () => {
    const entries = () => (t.app.caches() as { bodies: { entries: number } }).bodies.entries;
    const before = entries();
    for (const [url, status] of [
      ['/graphql?x=1', 200], // "Must provide query string", as application/json
      ['/graphql?query=%7Bnope%7D', 200], // a validation error
      ['/graphql?query=%7Bproducts(amount%3A%22-1%22)%7Btotal%7D%7D', 200], // an argument refused
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const res = await t.get(url, { headers: { accept: 'application/json' } });
        expect(res.status, url).toBe(status);
        expect(((await res.json()) as { errors?: unknown[] }).errors?.length, url).toBeGreaterThan(0);
        expect(res.headers.has('x-no-reuse')).toBe(false);
      }
    }
    expect(entries()).toBe(before);
    await (await t.get('/graphql?query=%7B__typename%7D&x=1')).arrayBuffer();
    expect(entries()).toBe(before + 1);
  });

  it('is emptied when the data changes, and its size is visible in /api/metrics', async () => {
    await t.get('/api/institutions');
    const metrics = (await (await t.get('/api/metrics')).json()) as {
      caches: { bodies: { entries: number; maxBytes: number } };
      process: { rssMb: number };
    };
    expect(metrics.caches.bodies.entries).toBeGreaterThan(0);
    expect(metrics.caches.bodies.maxBytes).toBe(
      planMemory({ budgetMb: t.config.memoryBudgetMb, workers: t.config.workers, embedded: t.db.kind === 'embedded' })
        .caches.bodies,
    );
    expect(metrics.process.rssMb).toBeGreaterThan(10);
  });
});

describe('the node fast path', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer(t.app.listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const raw = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<{ status: number; statusText: string; headers: http.IncomingHttpHeaders; body: Buffer }>(
      (resolve, reject) => {
        const req = http.request(`${base}${path}`, { method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              statusText: res.statusMessage ?? '',
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );

  it('answers a repeat from the cache exactly like the first answer', async () => {
    const path = '/api/products?type=notice&amount=7777';
    const first = await raw(path);
    const hitsBefore = t.app.caches().bodies as { hits: number };
    const second = await raw(path);
    expect(second.status).toBe(200);
    expect(second.statusText).toBe('OK');
    expect(second.body.equals(first.body)).toBe(true);
    for (const name of ['etag', 'content-type', 'cache-control', 'vary', 'access-control-allow-origin'])
      expect(second.headers[name], name).toBe(first.headers[name]);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect((t.app.caches().bodies as { hits: number }).hits).toBeGreaterThan(hitsBefore.hits);

    const notModified = await raw(path, { 'if-none-match': String(first.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(notModified.headers['content-type']).toBeUndefined();
    const head = await raw(path, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(first.body.length));
    const gz = await raw(path, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(first.body)).toBe(true);
  });

  // A REST answer that may be kept is computed without a Request or yoga's fetch (handler.ts, `direct`):
  // the same route and operation, so the same answer as yoga gives for the URL.
  it.each([
    ['a list', '/api/products?type=all&amount=31415.92&pageSize=3', 200],
    ['a list at a horizon, sorted', '/api/products?type=flexible&horizon=7&sort=bank&order=desc&amount=2718.28', 200],
    ['an offer with steps', '/api/products/{id}?amount=16180.34&steps=true', 200],
    ['an unknown offer', '/api/products/no-such-offer?amount=1000', 404],
    ['a plan', '/api/plan?amount=141421.36&maxOffers=3', 200],
    ['history', '/api/rates/history?offerId={id}', 200],
  ])('answers %s computed over a socket as yoga does', async (_what, template, status) => {
    // an offer of the test's market (its ids are the sample's, drawn by its seed)
    const list = (await (await t.get('/api/products?type=flexible&pageSize=1')).json()) as { items: { id: string }[] };
    const path = template.replace('{id}', list.items[0]!.id);
    const viaYoga = await t.app.yoga.fetch(new Request(`http://localhost${path}`));
    expect(viaYoga.status).toBe(status);
    const yogaBody = Buffer.from(await viaYoga.arrayBuffer());
    const direct = await raw(path);
    expect(direct.status).toBe(viaYoga.status);
    expect(direct.body.equals(yogaBody)).toBe(true);
    for (const name of ['content-type', 'data-version', 'method-version', 'data-chain', 'memento-datetime'])
      expect(direct.headers[name] ?? null, name).toBe(viaYoga.headers.get(name));
    if (direct.status === 200) {
      // a 200 without its own says the data's (layer.ts)
      expect(direct.headers['cache-control']).toBe(viaYoga.headers.get('cache-control') ?? CACHE_CONTROL.data);
      expect(direct.headers.etag).toBe(etagOf(new Uint8Array(yogaBody)));
      // kept: the same request again is a hit, with the same validator
      const again = await raw(path, { 'if-none-match': String(direct.headers.etag) });
      expect(again.status).toBe(304);
    } else expect(direct.headers.etag).toBeUndefined();
    expect(direct.headers['x-request-id']).toBeTruthy();
    expect(direct.headers['access-control-allow-origin']).toBe('*');
    expect(direct.headers['x-content-type-options']).toBe('nosniff');
  });

  it('echoes the request id and answers HEAD on the computed path', async () => {
    const amount = '/api/products?type=notice&amount=5772.15';
    const head = await raw(amount, { 'x-request-id': 'direct-head-1' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['x-request-id']).toBe('direct-head-1');
    const get = await raw(amount);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(head.headers.etag).toBe(get.headers.etag);
  });

  it('makes the Link header of a cached answer from the request at hand', async () => {
    const a = await raw('/api/products?type=all&pageSize=7&amount=4321');
    const b = await raw('/api/products?amount=4321&pageSize=7&type=all&ref=b');
    expect(b.body.equals(a.body)).toBe(true); // the same normalised request: one cache entry
    expect(a.headers.link).toContain('</api/products?type=all&pageSize=7&amount=4321&page=2>; rel="next"');
    expect(b.headers.link).toContain('</api/products?amount=4321&pageSize=7&type=all&ref=b&page=2>; rel="next"');
  });

  it('puts a reason phrase on the status line of answers built by the application', async () => {
    const res = await raw('/api/nothing');
    expect(res.status).toBe(404);
    expect(res.statusText).toBe('Not Found');
  });
});
