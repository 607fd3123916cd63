// app.warmUp: the default list answered once before the port opens, to no client: nothing of it is
// logged, counted or kept as an answer, and the list a client then asks is the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 120_000);
afterAll(() => t?.close());

const requestsCounted = async () => {
  const text = await (await t.get('/metrics')).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('http_requests_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
};

describe('warming up', () => {
  it("answers the default list to no client: not counted, not kept; then a client's list", async () => {
    const before = await requestsCounted(); // the scrape itself is counted once it is answered
    const ms = await t.app.warmUp();
    expect(ms).toBeGreaterThan(0);
    const after = await requestsCounted();
    expect(after - before).toBe(1); // the first scrape only: the warm-up's three requests are not there
    expect((t.app.caches() as { bodies: { entries: number } }).bodies.entries).toBe(0);

    const list = await t.get('/api/products');
    expect(list.status).toBe(200);
    const body = (await list.json()) as { items: unknown[] };
    expect(body.items.length).toBeGreaterThan(0);
  });
});
