// The application on a thread of its own behind the front (src/threads/, a single process's default): the
// same answers, byte for byte, as the application on the front's thread over the same database; health
// and the metrics answered by the front from the application's reports; the client's going and the time
// limit stop the calculation on the other thread; streams pass through as they are written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App, type Serving } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { memoryPlanOf } from '../src/memory.js';
import { seedSample } from '../src/sample/seed.js';
import { createThreadedApp } from '../src/threads/front.js';
import { SAMPLE } from './support/app.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { budgetPlans, hardPlans } from './support/hard-plans.js';
import { readSse } from './support/sse.js';

let db: TestDatabase;
let threaded: Serving;
let inProcess: App;
let exited: number | null = null;

const config = loadConfig({
  LOG_LEVEL: 'silent',
  RELOAD_POLL_MS: '200',
  REQUEST_TIMEOUT_MS: '2000',
  // The suite's other files keep the cores busy: a thread that gives way to them would miss its deadline.
  COMPUTE_THREAD_NICE: '0',
  // the sample's data is of a fixed date: health stays ok whenever the suite runs
  MAX_DATA_AGE_HOURS: '87600',
});
const logger = createLogger(process.env.TEST_LOG ?? 'silent');

beforeAll(async () => {
  db = await createTestDatabase();
  await seedSample(db.prisma, SAMPLE);
  const database = { prisma: db.prisma, kind: db.kind, url: db.url, close: db.close };
  threaded = await createThreadedApp({
    config,
    db: database,
    logger,
    memory: memoryPlanOf(config),
    onExit: (code) => void (exited = code),
  });
  inProcess = await createApp({ config, db: database, logger });
}, 120_000);

afterAll(async () => {
  await threaded?.close();
  await inProcess?.close();
  await db?.close();
});

const ask = (app: Serving, path: string, init?: RequestInit) =>
  app.fetch(new Request(`http://test.local${path}`, init));

/** Waits until `check` holds, polling; fails with what it last saw. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms: number): Promise<T> {
  const until = performance.now() + ms;
  let value = await read();
  while (!check(value) && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await read();
  }
  return value;
}

/** An offer's detail at an amount, with its month-by-month steps. */
async function detailPath(): Promise<string> {
  const list = (await (await ask(inProcess, '/api/products?amount=10000&pageSize=1')).json()) as {
    items: { id: string }[];
  };
  return `/api/products/${list.items[0]!.id}?amount=10000`;
}

const graphqlPost = (query: string, variables?: Record<string, unknown>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query, variables }),
});

describe('the application on a thread of its own', () => {
  // Each row: a request as clients send it; both builds must answer the same status, bytes and headers.
  const requests: [string, string, RequestInit?][] = [
    ['a list', '/api/products?amount=25000'],
    ['a list for a long horizon, a page of many rows', '/api/products?amount=731.5&horizon=120&pageSize=200'],
    ['one offer with its steps', 'DETAIL'],
    ['the CSV of the market', '/api/products/export?amount=5000'],
    ['every problem of a bad request', '/api/products?amount=-1&type=nope&sort=up'],
    ['a path that is not there', '/api/nothing'],
    ['a HEAD', '/api/products?amount=2500', { method: 'HEAD' }],
    [
      'a GraphQL POST',
      '/graphql',
      graphqlPost('query($a: Decimal!) { products(amount: $a) { total } }', { a: '1234' }),
    ],
    ['a GraphQL POST with errors', '/graphql', graphqlPost('{ products(amount: "x") { total } }')],
    ['a GraphQL GET', `/graphql?query=${encodeURIComponent('{ products(amount: "300") { total } }')}`],
  ];

  it.each(requests)('answers %s as the application on one thread does', async (_name, target, init) => {
    const path = target === 'DETAIL' ? await detailPath() : target;
    const [a, b] = await Promise.all([ask(threaded, path, init), ask(inProcess, path, init)]);
    expect(a.status).toBe(b.status);
    for (const header of ['content-type', 'etag', 'cache-control', 'vary', 'content-length', 'data-version'])
      expect([header, a.headers.get(header)]).toEqual([header, b.headers.get(header)]);
    expect(Buffer.from(await a.arrayBuffer()).equals(Buffer.from(await b.arrayBuffer()))).toBe(true);
  });

  it('answers a repeated list from the front: 304 for its ETag, without the application', async () => {
    const first = await ask(threaded, '/api/products?amount=4321');
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const before = (await (await ask(threaded, '/api/metrics')).json()) as { caches: { bodies: { hits: number } } };
    const again = await ask(threaded, '/api/products?amount=4321', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const after = (await (await ask(threaded, '/api/metrics')).json()) as { caches: { bodies: { hits: number } } };
    expect(after.caches.bodies.hits).toBe(before.caches.bodies.hits + 1);
  });

  it("answers health and the metrics from the application's reports, with both threads' figures", async () => {
    const health = await ask(threaded, '/api/health');
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    await ask(threaded, '/api/products?amount=25000');
    // The application's figures are those of its last report, at most a second old.
    const scrape = async () => (await ask(threaded, '/metrics')).text();
    const text = await eventually(
      scrape,
      (t) => /^savings_cache_size\{cache="calculator",what="entries"\} [1-9]/m.test(t),
      3_000,
    );
    // the front's (requests, finished answers) and the application's (the calculator) in one scrape
    expect(text).toMatch(/^http_requests_total\{route="\/api\/products",method="GET",status="200"\} \d+/m);
    expect(text).toMatch(/^savings_cache_size\{cache="bodies",what="entries"\} [1-9]/m);
    expect(text).toMatch(/^savings_cache_size\{cache="calculator",what="entries"\} [1-9]/m);
    expect(text).toMatch(/^savings_app_report_age_seconds [0-9.e-]+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes\{worker="front"\} /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes\{worker="app"\} /m);
    expect((await ask(threaded, '/metrics', { method: 'POST' })).status).toBe(405);
  });

  it('stops a savings plan on the other thread when its client goes', async () => {
    const running = async () =>
      ((await (await ask(threaded, '/api/metrics')).json()) as { load: { lane: { running: number } } }).load.lane
        .running;
    const client = new AbortController();
    const answer = ask(threaded, '/graphql', { ...graphqlPost(hardPlans(5)), signal: client.signal }).catch(() => null);
    expect(await eventually(running, (n) => n > 0, 5_000)).toBeGreaterThan(0);
    client.abort();
    const goneAt = performance.now();
    expect(await eventually(running, (n) => n === 0, 2_000)).toBe(0);
    expect(performance.now() - goneAt).toBeLessThan(1_000);
    await answer;
  });

  it('gives a plan the deadline its request has on the front: its best plan and gap, in time', async () => {
    const started = performance.now();
    // four searches of ≈0.45 s each here (each stops at its work budget), past the deadline of 1 s
    const response = await ask(threaded, '/graphql', graphqlPost(budgetPlans(7)));
    const took = performance.now() - started;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Record<string, { optimal: boolean; optimalityGap: string }> };
    // Half of REQUEST_TIMEOUT_MS is the search's deadline (handler.ts), sent as what is left of it: not
    // passed already (the search would give up at once), not missing (it would run into the 503).
    expect(Object.values(body.data).some((plan) => !plan.optimal && Number(plan.optimalityGap) > 0)).toBe(true);
    expect(took).toBeGreaterThan(config.requestTimeoutMs * 0.45);
    expect(took).toBeLessThan(config.requestTimeoutMs);
    const lane = async () =>
      ((await (await ask(threaded, '/api/metrics')).json()) as { load: { lane: { running: number } } }).load.lane;
    expect((await eventually(lane, (l) => l.running === 0, 2_000)).running).toBe(0);
  });

  it('passes a stream of events through as it is written, and ends it when the client goes', async () => {
    const client = new AbortController();
    const response = await ask(threaded, '/api/changes/stream', {
      headers: { accept: 'text/event-stream' },
      signal: client.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = readSse(response.body!);
    // the stream opens with its retry advice before any event is ingested
    const first = await events.next(5_000);
    expect(first).not.toBeNull();
    client.abort();
    await events.close().catch(() => {});
    const open = async () => {
      const figures = (await (await ask(threaded, '/api/metrics')).json()) as {
        streams: { open: Record<string, number> };
      };
      return Object.values(figures.streams.open).reduce((a, b) => a + b, 0);
    };
    expect(await eventually(open, (n) => n === 0, 3_000)).toBe(0);
  });

  it('has not lost its application thread', () => {
    expect(exited).toBeNull();
  });
});
