// Distinct URLs cannot exhaust memory: 10,000 GraphQL GETs of ~8 KB each, all different, once ran both
// workers out of heap (every URL's answer and its normalised form were kept, their keys uncounted).
// Every cache a request can grow is bounded by bytes, keys included; the heap and the resident memory
// stop growing once the caches are full, and the caches' own counts explain what the heap holds.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_URL_LENGTH } from '../src/http/admission.js';
import { createTestApp, type TestApp } from './support/app.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 1024 * 1024;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ days: 2 });
});
afterAll(async () => {
  await t?.close();
});

interface CacheStats {
  entries?: number;
  bytes?: number;
  maxBytes?: number;
}
const caches = () => t.app.caches() as Record<string, CacheStats>;

/** Heap and resident memory after collecting everything that can be collected. */
function settled() {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external + m.arrayBuffers, rss: m.rss };
}

/** A URL of exactly MAX_URL_LENGTH characters for request n: the part that varies, then padding. */
function padded(prefix: (n: number) => string, n: number): string {
  const head = prefix(n);
  return head + 'x'.repeat(MAX_URL_LENGTH - head.length);
}

/** Sends `count` GETs of `urlOf(n)`, `parallel` at a time; returns the statuses seen. */
async function drive(count: number, urlOf: (n: number) => string, accept = 'application/json', parallel = 16) {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const res = await t.get(urlOf(n), { headers: { accept } });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return statuses;
}

/** The bytes every cache counts, and the sum of their bounds. */
function counted() {
  let bytes = 0;
  let bounds = 0;
  for (const [name, s] of Object.entries(caches())) {
    if (s.bytes === undefined || s.maxBytes === undefined) continue;
    expect(s.bytes, name).toBeLessThanOrEqual(s.maxBytes);
    bytes += s.bytes;
    bounds += s.maxBytes;
  }
  return { bytes, bounds };
}

describe('distinct long URLs', () => {
  it(
    '10,000 distinct 8 KB GraphQL GETs (and REST variants) keep every cache within its bytes and the heap too',
    {
      timeout: 120_000,
    },
    async () => {
      // Warm: the schema, yoga and the REST routes compiled, so that only what the URLs leave behind is measured.
      await drive(50, (n) => `/graphql?query={__typename}&n=${n}`);
      await drive(50, (n) => `/api/products?amount=${1000 + n}`);
      const before = { ...settled(), ...counted(), answers: caches().bodies!.entries! };
      const took: Record<string, number> = {};
      const phase = async (name: string, count: number, urlOf: (n: number) => string) => {
        const started = performance.now();
        const statuses = await drive(count, urlOf);
        took[name] = Math.round(performance.now() - started);
        return Object.fromEntries(statuses);
      };

      // "Must provide query string", as JSON (200, the legacy media type): an error, kept for no URL.
      expect(await phase('junk', 10_000, (n) => padded((i) => `/graphql?x=${i}&j=`, n))).toEqual({ 200: 10_000 });
      expect(caches().bodies!.entries! - before.answers).toBe(0);
      // The same with a query: each answer is valid, and the same answer (yoga reads none of the rest).
      expect(
        await phase('typename', 1_000, (n) => padded((i) => `/graphql?query=%7B__typename%7D&x=${i}&j=`, n)),
      ).toEqual({ 200: 1_000 });
      expect(caches().bodies!.entries! - before.answers).toBeLessThanOrEqual(1);
      // Distinct documents (a comment makes each one different): parsed, validated, compiled, answered.
      expect(await phase('documents', 300, (n) => padded((i) => `/graphql?query=%7B__typename%7D%23${i}`, n))).toEqual({
        200: 300,
      });
      // REST: unknown parameters are ignored (contract §7), so each is a valid list request, one answer.
      expect(await phase('rest', 1_000, (n) => padded((i) => `/api/products?pageSize=5&x=${i}&j=`, n))).toEqual({
        200: 1_000,
      });
      const after = { ...settled(), ...counted() };

      const grown = {
        heap: after.heap - before.heap,
        rss: after.rss - before.rss,
        counted: after.bytes - before.bytes,
      };
      console.info(
        `${JSON.stringify(took)} ms; heap +${(grown.heap / MB).toFixed(1)} MB, external ` +
          `+${((after.external - before.external) / MB).toFixed(1)} MB, rss +${(grown.rss / MB).toFixed(1)} MB; ` +
          `the caches count +${(grown.counted / MB).toFixed(1)} MB (${(after.bytes / MB).toFixed(1)} MB of ` +
          `${(after.bounds / MB).toFixed(1)} MB)`,
      );
      // What the heap kept is what the caches say they keep (their counts are honest), with room for noise.
      expect(grown.heap).toBeLessThanOrEqual(grown.counted + 16 * MB);
      // The first flood also raises the native allocator's high-water mark (HTTP parsing and compression
      // buffers, outside the heap and counted by no cache): 100-150 MB here, once, more on a busier machine,
      // so it is no bound (the service's own, MEMORY_BUDGET_MB, is held by `npm run attack:urls`). Bounded
      // means that it stops there: a second flood of as many new URLs leaves the process, heap and resident
      // memory alike, where the first left it.
      await phase('junk again', 10_000, (n) => padded((i) => `/graphql?y=${i}&j=`, n));
      await phase('rest again', 1_000, (n) => padded((i) => `/api/products?pageSize=5&y=${i}&j=`, n));
      const again = { ...settled(), ...counted() };
      expect(again.heap - after.heap).toBeLessThanOrEqual(8 * MB);
      expect(again.rss - after.rss).toBeLessThanOrEqual(32 * MB);
    },
  );
});
