// Savings plans as an attacker sends them (issue: a few hard plans held the event loop for seconds): the
// search runs in the CPU lane (src/catalog/lane.ts), so cached answers go out while it runs, it stops when
// its client goes, it gives up at its deadline with its best plan, and a full lane refuses at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuLane } from '../src/catalog/lane.js';
import { planAllocation, planQuery } from '../src/catalog/plan.js';
import { Decimal } from '../src/domain/decimal.js';
import { createTestApp, serve, type TestApp } from './support/app.js';
import { hardPlans } from './support/hard-plans.js';
import { sample } from './support/metrics.js';

const HARD = (seed: number) => hardPlans(seed, '{ optimal optimalityGap totals { placed returnPerYear } }');

/**
 * The offer models of these plans, built once per data version (and not bounded by a deadline): built
 * before what is measured, by one plan computed at once.
 */
function warmUp(t: TestApp): void {
  const services = t.app.services;
  planAllocation(
    { catalog: services.store.current(), calc: services.calc, now: services.clock() },
    planQuery({ amount: new Decimal('1100000'), maxOffers: 20, flexibleShare: new Decimal('33') }),
  );
}

const post = (base: string, query: string, signal?: AbortSignal) =>
  fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    signal,
  });

const until = async (done: () => boolean, ms: number): Promise<number> => {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - start;
};

describe('plans in the CPU lane', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof serve>>;
  /** GET /api/plan's answers of a status so far, as /metrics counts them. */
  const planAnswers = async (status: number): Promise<number> => {
    const text = await (await fetch(`${server.base}/metrics`)).text();
    return sample(text, 'http_requests_total', { route: '/api/plan', method: 'GET', status: String(status) }) ?? 0;
  };
  beforeAll(async () => {
    t = await createTestApp();
    server = await serve(t.app);
    warmUp(t);
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('lets cached answers and health through while hard plans run', async () => {
    const list = `${server.base}/api/products?amount=25000`;
    await (await fetch(list)).arrayBuffer();
    const started = performance.now();
    let planDone = 0;
    const plans = post(server.base, HARD(1)).then(async (r) => {
      planDone = performance.now();
      return { status: r.status, body: await r.json() };
    });
    await until(() => cpuLane.figures().running > 0, 5_000);
    const waits: number[] = [];
    while (planDone === 0 && waits.length < 200) {
      for (const url of [list, `${server.base}/api/health`]) {
        const asked = performance.now();
        expect((await fetch(url)).status).toBe(200);
        waits.push(performance.now() - asked);
      }
    }
    const { status, body } = await plans;
    expect(status).toBe(200);
    expect(Object.keys(body.data)).toEqual(['p0', 'p1', 'p2', 'p3']);
    // Answers went out all along, each in a small part of the time the plans took.
    expect(waits.length).toBeGreaterThan(4);
    expect(Math.max(...waits)).toBeLessThan((planDone - started) / 3);
  });

  it('stops a plan whose client goes, within a slice or two', async () => {
    const { abandoned, busyMs } = cpuLane.figures();
    const controller = new AbortController();
    const request = post(server.base, HARD(2), controller.signal).catch((err: Error) => err);
    await until(() => cpuLane.figures().running === 4, 5_000);
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    const stoppedIn = await until(() => cpuLane.figures().running === 0, 2_000);
    expect(cpuLane.figures().abandoned).toBe(abandoned + 4);
    // stopped at once, not after the seconds the four searches take
    expect(stoppedIn).toBeLessThan(500);
    expect(cpuLane.figures().busyMs - busyMs).toBeLessThan(1_000);
  });

  it('stops a REST plan whose client goes (computed without yoga: the socket tells)', async () => {
    const { abandoned } = cpuLane.figures();
    const left = await planAnswers(499);
    const failed = await planAnswers(500);
    const controller = new AbortController();
    const request = fetch(`${server.base}/api/plan?amount=1100457&maxOffers=20&flexibleShare=33`, {
      signal: controller.signal,
    }).catch((err: Error) => err);
    await until(() => cpuLane.figures().running === 1, 5_000);
    controller.abort();
    expect(await request).toBeInstanceOf(Error);
    const stoppedIn = await until(() => cpuLane.figures().running === 0, 2_000);
    expect(cpuLane.figures().abandoned).toBe(abandoned + 1);
    expect(stoppedIn).toBeLessThan(500);
    // counted as the client's leaving (499), not as an error of ours (500)
    for (let tries = 0; (await planAnswers(499)) === left && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await planAnswers(499)).toBe(left + 1);
    expect(await planAnswers(500)).toBe(failed);
  });

  it('refuses plans at once while the lane is full: 503 and Retry-After on REST, an error in GraphQL', async () => {
    const running = post(server.base, HARD(3));
    await until(() => cpuLane.figures().running === cpuLane.capacity, 5_000);
    const asked = performance.now();
    const rest = await fetch(`${server.base}/api/plan?amount=1100123&maxOffers=20&flexibleShare=33`);
    const restMs = performance.now() - asked;
    const graphql = await (await post(server.base, HARD(4))).json();
    expect(rest.status).toBe(503);
    expect(rest.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await rest.json()).detail).toMatch(/savings plans/);
    expect(restMs).toBeLessThan(1_000);
    // a plan is not nullable: the first refusal empties the answer
    expect(graphql.data).toBeNull();
    expect(graphql.errors.length).toBeGreaterThan(0);
    for (const e of graphql.errors) expect(e.extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect((await running).status).toBe(200);
  });
});

describe('a plan past its deadline', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The deadline is half the timeout: 200 ms, far less than these four searches take together, and
    // 200 ms left for the answer after it on a busy machine.
    t = await createTestApp({ env: { REQUEST_TIMEOUT_MS: '400' } });
    warmUp(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps a plan cut short by its deadline in no cache: the same request later is searched again', async () => {
    const server = await serve(t.app);
    try {
      // four hard plans at once share the lane: each runs out of its 200 ms before it can prove its plan
      const urls = [0, 1, 2, 3].map(
        (k) => `${server.base}/api/plan?amount=${1_100_000 + 7 * 37 + k * 13}&maxOffers=20&flexibleShare=33`,
      );
      const bodies = () => t.app.caches().bodies as { hits: number };
      const answers = await Promise.all(urls.map((url) => fetch(url)));
      const plans = (await Promise.all(answers.map((a) => a.json()))) as { optimal: boolean }[];
      const cut = plans.findIndex((p) => !p.optimal);
      expect(cut).toBeGreaterThanOrEqual(0);
      for (const [i, answer] of answers.entries()) {
        expect(answer.status).toBe(200);
        if (!plans[i]!.optimal) expect(answer.headers.get('cache-control')).toBe('no-store');
      }
      const hits = bodies().hits;
      await (await fetch(urls[cut]!)).arrayBuffer();
      expect(bodies().hits).toBe(hits);
      // one proven in time is kept as before
      const easy = `${server.base}/api/plan?amount=20000`;
      const proven = await fetch(easy);
      expect(((await proven.json()) as { optimal: boolean }).optimal).toBe(true);
      expect(proven.headers.get('cache-control')).toMatch(/max-age=300/);
      await fetch(easy);
      expect(bodies().hits).toBe(hits + 1);
    } finally {
      await server.close();
    }
  });

  it('does not keep such a plan asked by GraphQL GET either', async () => {
    const bodies = () => t.app.caches().bodies as { hits: number };
    const get = () =>
      t.get(`/graphql?query=${encodeURIComponent(HARD(9))}`, { headers: { accept: 'application/json' } });
    const first = await get();
    const plans = Object.values(((await first.json()) as { data: Record<string, { optimal: boolean }> }).data);
    expect(plans.some((p) => !p.optimal)).toBe(true);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const hits = bodies().hits;
    await (await get()).arrayBuffer();
    expect(bodies().hits).toBe(hits);
  });

  it('answers its best plan and gap rather than a timeout', async () => {
    const { status, body } = await t.graphql<Record<string, { optimal: boolean; optimalityGap: string | null }>>(
      HARD(5),
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const plans = Object.values(body.data!);
    expect(plans.some((p) => !p.optimal)).toBe(true);
    for (const p of plans) if (!p.optimal) expect(p.optimalityGap === null || Number(p.optimalityGap) > 0).toBe(true);
  });
});
