// npm run openapi:examples: real answers of the sample market for the OpenAPI document's examples, one per
// operation and status, with long lists cut to a few items so the document stays readable. Run it after
// changing what an answer holds; a test validates every example against the document's schemas, so an
// example that no longer fits fails the suite.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createPrisma } from '../src/db/client.js';
import { openInMemory } from '../src/db/embedded.js';
import { applyMigrations } from '../src/db/migrate.js';
import { createLogger } from '../src/logger.js';
import { seedSample } from '../src/sample/seed.js';

const OUT = fileURLToPath(new URL('../src/rest/openapi-examples.json', import.meta.url));
/** The sample the tests use, and a clock six hours after its last snapshot. */
const SAMPLE = { seed: 11, days: 20, end: '2026-11-20', scale: 1 } as const;
const NOW = new Date('2026-11-20T12:00:00.000Z');

type Json = any;

/** At most `n` items of every list in `keys` (deeply), so examples stay short. */
function trim(value: Json, n: number, keys: ReadonlySet<string>): Json {
  if (Array.isArray(value)) return value.map((v) => trim(v, n, keys));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      keys.has(k) && Array.isArray(v) ? v.slice(0, n).map((x) => trim(x, n, keys)) : trim(v, n, keys),
    ]),
  );
}

async function main() {
  const db = await openInMemory();
  await applyMigrations(db.url);
  const prisma = createPrisma(db.url, 4);
  await seedSample(prisma, SAMPLE);
  const app = await createApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    db: { prisma, kind: 'embedded', url: db.url, close: async () => {} },
    logger: createLogger('silent'),
    clock: () => NOW,
  });
  const get = async (path: string) => {
    const res = await app.fetch(new Request(`http://localhost${path}`));
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) as Json };
  };
  const lists = new Set([
    'items',
    'steps',
    'history',
    'events',
    'sources',
    'sameLicence',
    'termCurve',
    'type',
    'channel',
    'country',
    'dgsCountry',
    'payout',
    'term',
    'withholding',
    'brands',
    'tiers',
  ]);
  const catalog = app.services.store.current();
  // A deposit with a promotion and another brand under its licence: the detail shows every part.
  const detailed = catalog.offers.find((o) => o.promotion && o.sharedWith.length > 0) ?? catalog.offers[0]!;

  const examples: Record<string, Record<string, Json>> = {};
  const add = async (operationId: string, status: number, path: string, n = 2) => {
    const res = await get(path);
    if (res.status !== status)
      throw new Error(`${path}: expected ${status}, got ${res.status}: ${res.text.slice(0, 200)}`);
    (examples[operationId] ??= {})[String(status)] = trim(res.json(), n, lists);
  };
  await add('listProducts', 200, '/api/products?amount=25000&type=all&pageSize=2');
  await add('listProducts', 400, '/api/products?amount=-5&pageSize=501&type=savings');
  await add('getProduct', 200, `/api/products/${detailed.id}?amount=25000&horizon=12`, 3);
  await add('getProduct', 400, `/api/products/${detailed.id}?amount=12.345`);
  await add('getProduct', 404, '/api/products/no-such-offer');
  await add('listInstitutions', 200, '/api/institutions');
  await add('getRateHistory', 200, '/api/rates/history?pageSize=2');
  await add('getRateHistory', 404, '/api/rates/history?offerId=no-such-offer');
  await add('listChanges', 200, '/api/changes?limit=3', 3);
  await add('getLastUpdated', 200, '/api/meta/last-updated');
  await add('getHealth', 200, '/api/health');
  await add('getMetrics', 200, '/api/metrics');
  const csv = await get('/api/products/export?amount=25000&type=deposit&terms=12');
  (examples.exportProducts ??= {})['200'] = `${csv.text.split('\r\n').slice(0, 3).join('\r\n')}\r\n`;
  examples.getOpenApi = {
    '200': { openapi: '3.1.0', info: { title: 'Savings-rate comparison API', version: '0.2.0' }, paths: {} },
  };
  examples.getApiReference = {
    '200': '<!doctype html><html lang="en"><head><title>Savings-rate comparison API</title>…',
  };
  // Degraded: the same health a week after the last snapshot.
  const stale = await createApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    db: { prisma, kind: 'embedded', url: db.url, close: async () => {} },
    logger: createLogger('silent'),
    clock: () => new Date(NOW.getTime() + 7 * 86_400_000),
  });
  const degraded = await stale.fetch(new Request('http://localhost/api/health'));
  examples.getHealth!['503'] = await degraded.json();

  writeFileSync(OUT, `${JSON.stringify(examples, null, 2)}\n`);
  console.log(`wrote ${OUT}`);
  await app.close();
  await stale.close();
  await prisma.$disconnect();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
