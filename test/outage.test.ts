// The database goes away mid-run and comes back: lists, details and the export keep answering from
// memory, health says what is wrong, what needs the database answers 503 with Retry-After (promptly,
// no hang), nothing half-known is cached, and everything recovers without a restart.
// Runs on the embedded database by default and against PostgreSQL in CI (TEST_DATABASE_URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createPrisma } from '../src/db/client.js';
import { createLogger } from '../src/logger.js';
import { seedSample } from '../src/sample/seed.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { cuttableProxy, type CuttableProxy } from './support/proxy.js';
import { SAMPLE } from './support/app.js';

let db: TestDatabase;
let proxy: CuttableProxy;
let app: App;
let closeApp: () => Promise<void>;
const get = (path: string) => app.fetch(new Request(`http://test.local${path}`));
const now = new Date(`${SAMPLE.end}T12:00:00.000Z`);

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

beforeAll(async () => {
  db = await createTestDatabase();
  await seedSample(db.prisma, { ...SAMPLE, days: 5 });
  proxy = await cuttableProxy(db.url);
  const prisma = createPrisma(proxy.url, 4);
  const config = loadConfig({ LOG_LEVEL: 'silent', RELOAD_POLL_MS: '200' });
  app = await createApp({
    config,
    db: { prisma, kind: db.kind, url: proxy.url, close: () => prisma.$disconnect() },
    logger: createLogger(process.env.TEST_LOG ?? 'silent'),
    clock: () => now,
  });
  closeApp = async () => {
    await app.close();
    await prisma.$disconnect();
  };
});
afterAll(async () => {
  await closeApp?.();
  await proxy?.close();
  await db?.close();
});

describe('a database outage', () => {
  it('is survived, reported and recovered from', async () => {
    const offers = app.services.store.current().offers;
    const [a, b] = [offers[0]!, offers.find((o) => o.institution.id !== offers[0]!.institution.id)!];
    expect((await get(`/api/products/${a.id}`)).status).toBe(200); // a's history is now known
    expect((await get('/api/products?type=all')).status).toBe(200);

    await proxy.cut();

    // Answered from memory.
    const list = await get('/api/products?type=all&amount=12345');
    expect(list.status).toBe(200);
    expect(((await list.json()) as { total: number }).total).toBeGreaterThan(100);
    const export_ = await get('/api/products/export?type=notice&amount=2222');
    expect(export_.status).toBe(200);
    expect((await export_.text()).split('\r\n').length).toBeGreaterThan(3);
    const known = (await (await get(`/api/products/${a.id}?amount=3333`)).json()) as { history: unknown[] | null };
    expect(known.history?.length).toBeGreaterThan(0); // from the history cache
    const started = Date.now();
    const unknown = await get(`/api/products/${b.id}?amount=4444`);
    expect(unknown.status).toBe(200);
    const detail = (await unknown.json()) as {
      offer: { id: string; calc: { steps: unknown[] } };
      history: unknown;
      events: unknown;
      sources: unknown[];
    };
    expect(detail.offer.id).toBe(b.id);
    expect(detail.offer.calc.steps.length).toBeGreaterThan(0);
    expect(detail.history).toBeNull();
    expect(detail.events).toBeNull();
    expect(detail.sources.length).toBeGreaterThan(0); // what the catalogue knows
    expect(Date.now() - started).toBeLessThan(8_000);

    // Health says which check failed.
    const health = await get('/api/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'degraded', checks: { database: 'unavailable', data: 'ok' } });

    // What needs the database: 503 problem+json with Retry-After, promptly.
    for (const path of [
      '/api/rates/history?pageSize=3',
      `/api/rates/history?offerId=${b.id}`,
      '/api/changes?limit=3',
    ]) {
      const t0 = Date.now();
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after')), path).toBeGreaterThan(0);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|:\d{4,5}/);
      expect(Date.now() - t0, path).toBeLessThan(8_000);
    }
    const graphql = await app.fetch(
      new Request('http://test.local/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ changes(limit: 1) { items { id } } }' }),
      }),
    );
    expect(((await graphql.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe(
      'SERVICE_UNAVAILABLE',
    );

    await proxy.restore();

    // Back by itself: the checks pass again and the degraded detail was not kept.
    expect(await until(async () => (await get('/api/health')).status === 200, 20_000)).toBe(true);
    expect((await get('/api/rates/history?pageSize=3')).status).toBe(200);
    expect((await get('/api/changes?limit=3')).status).toBe(200);
    const again = (await (await get(`/api/products/${b.id}?amount=4444`)).json()) as {
      history: unknown[] | null;
      events: unknown[] | null;
    };
    expect(again.history?.length).toBeGreaterThan(0);
    expect(again.events).not.toBeNull();
  });
});
