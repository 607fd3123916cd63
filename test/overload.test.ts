// Past capacity the service refuses at once what it cannot compute soon (src/http/overload.ts), and never
// what costs it nothing or what an operator needs: cached answers, health, metrics, open streams.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuLane } from '../src/catalog/lane.js';
import { createTestApp, serve, type TestApp } from './support/app.js';

const HARD_PLAN =
  '{ plan(amount: "1100321", maxOffers: 20, flexibleShare: "33") { optimal } ' +
  'p2: plan(amount: "1100654", maxOffers: 20, flexibleShare: "33") { optimal } }';

/** Two hard plans in one request, once they run in the lane: the answer, still to come. */
async function holdTheBound(base: string): Promise<{ answer: Promise<Response> }> {
  const holding = fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: HARD_PLAN }),
  });
  const start = performance.now();
  while (cpuLane.figures().running === 0) {
    if (performance.now() - start > 10_000) throw new Error('the plans never started');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { answer: holding };
}

describe('a process at its bound of work in progress', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_IN_FLIGHT: '1', QUEUE_WAIT_MS: '0' } });
    server = await serve(t.app);
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('refuses computed answers with 503 and Retry-After; never cached ones, health, metrics, streams', async () => {
    const cached = `${server.base}/api/products?amount=25000`;
    expect((await fetch(cached)).status).toBe(200);
    // one request in progress fills the bound: two hard plans, searched in the lane
    const holding = (await holdTheBound(server.base)).answer;

    const cold = await fetch(`${server.base}/api/products?amount=31337`);
    expect(cold.status).toBe(503);
    expect(cold.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Number(cold.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await cold.json()).detail).toMatch(/1 at once/);
    // a GraphQL operation is computed too (the operator's health check is GET /api/health)
    const graphql = await fetch(`${server.base}/graphql?query=${encodeURIComponent('{ health { status } }')}`);
    expect(graphql.status).toBe(503);

    expect((await fetch(cached)).status).toBe(200);
    expect((await fetch(`${server.base}/api/health`)).status).toBe(200);
    const stream = new AbortController();
    const events = await fetch(`${server.base}/api/changes/stream`, {
      headers: { accept: 'text/event-stream' },
      signal: stream.signal,
    });
    expect(events.status).toBe(200);
    stream.abort();
    const metrics = await fetch(`${server.base}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/savings_requests_refused_total\{reason="full"\} [1-9]/);
    expect(text).toMatch(/savings_in_flight\{what="limit"\} 1/);

    expect((await holding).status).toBe(200);
    // the slot is given back: computed answers again
    expect((await fetch(`${server.base}/api/products?amount=31337`)).status).toBe(200);
  });
});

describe('a client that goes while its request waits for a slot', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_IN_FLIGHT: '1', QUEUE_WAIT_MS: '5000', LOOP_LAG_TARGET_MS: '0' } });
    server = await serve(t.app);
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('does not keep the slot it is given after it went', async () => {
    const holding = (await holdTheBound(server.base)).answer;
    // queued behind the plans, then gone
    const gone = fetch(`${server.base}/api/products?amount=27182`, { signal: AbortSignal.timeout(100) });
    await expect(gone).rejects.toThrow();
    expect((await holding).status).toBe(200);

    // The slot went to the request that left and came back: the next ones are answered, not queued.
    for (const amount of ['16180', '14142']) {
      const res = await fetch(`${server.base}/api/products?amount=${amount}`, { signal: AbortSignal.timeout(4000) });
      expect(res.status).toBe(200);
    }
    const text = await (await fetch(`${server.base}/metrics`)).text();
    expect(text).toMatch(/savings_in_flight\{what="in_flight"\} 0/);
  });
});
