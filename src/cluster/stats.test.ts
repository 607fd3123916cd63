// How the figures of several processes are put together: real registries (as each worker makes its own),
// aggregated as the primary does for /metrics and read back with a Prometheus text parser.
import fc from 'fast-check';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { createMetrics, processRegistry } from '../http/metrics.js';
import { aggregateMetrics, combineStats, processFigures } from './stats.js';

interface WorkerState {
  version: number;
  age: number | null;
  bodies: { entries: number; bytes: number; maxBytes: number; hits: number };
  requests: number;
}

const WORKERS = 4;
const states: WorkerState[] = [];
const workers = Array.from({ length: WORKERS }, (_, i) => {
  const state = () => states[i]!;
  return createMetrics(
    {
      caches: () => ({ bodies: state().bodies }),
      dataVersion: () => state().version,
      dataAgeSeconds: () => state().age,
    },
    { worker: String(i + 1) },
  );
});
const primary = processRegistry('primary');
const served = new Array<number>(WORKERS).fill(0);

const workerState = fc.record({
  version: fc.integer({ min: 0, max: 1_000 }),
  age: fc.option(fc.integer({ min: 0, max: 10_000_000 })),
  bodies: fc.record({
    entries: fc.nat(5_000),
    bytes: fc.nat(50_000_000),
    maxBytes: fc.integer({ min: 1, max: 50_000_000 }),
    hits: fc.nat(1_000),
  }),
  requests: fc.nat(20),
});

const family = (families: MetricFamily[], name: string) => families.find((f) => f.name === name);

describe('/metrics across workers', () => {
  it('gives the lowest data version, the oldest data, sums of sizes and counts, and each process its own', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(workerState, { minLength: 1, maxLength: WORKERS }), async (now) => {
        states.splice(0, states.length, ...now);
        now.forEach((s, i) => {
          for (let n = 0; n < s.requests; n++) workers[i]!.observeRequest('GET', '/api/products', 200, 0.002);
          served[i]! += s.requests;
        });
        const answering = workers.slice(0, now.length);
        const text = await aggregateMetrics([
          ...(await Promise.all(answering.map((w) => w.registry.getMetricsAsJSON()))),
          await primary.getMetricsAsJSON(),
        ]);
        const families = parsePrometheusTextFormat(text);
        const one = (name: string) => {
          const metrics = family(families, name)?.metrics ?? [];
          expect(metrics, name).toHaveLength(1);
          return Number(metrics[0]!.value);
        };

        expect(one('savings_data_version')).toBe(Math.min(...now.map((s) => s.version)));
        const ages = now.map((s) => s.age).filter((a): a is number => a !== null);
        // (a worker without data reports 0: prom-client keeps a value for a gauge without labels)
        if (ages.length > 0) expect(one('savings_data_age_seconds')).toBe(Math.max(...ages));

        const sizes = family(families, 'savings_cache_size')!.metrics;
        for (const what of ['entries', 'bytes', 'maxBytes'] as const) {
          const series = sizes.filter((m) => m.labels?.cache === 'bodies' && m.labels.what === what);
          expect(series.map((m) => Number(m.value))).toEqual([now.reduce((n, s) => n + s.bodies[what], 0)]);
        }
        // one series, or none while no answering worker has counted a request (a counter with labels has
        // no series before its first)
        const requests = family(families, 'http_requests_total')?.metrics ?? [];
        expect(requests.length).toBeLessThanOrEqual(1);
        const total = served.slice(0, now.length).reduce((a, b) => a + b, 0);
        expect(requests.reduce((n, m) => n + Number(m.value), 0)).toBe(total);
        if (total > 0) expect(requests).toHaveLength(1);

        // the process's own figures: one series per process, none summed, the start time kept
        const labels = ['primary', ...now.map((_, i) => String(i + 1))].sort();
        for (const name of [
          'process_resident_memory_bytes',
          'nodejs_heap_size_used_bytes',
          'process_start_time_seconds',
        ]) {
          const metrics = family(families, name)?.metrics ?? [];
          expect(metrics.map((m) => m.labels?.worker).sort(), name).toEqual(labels);
        }
        const rss = family(families, 'process_resident_memory_bytes')!.metrics.map((m) => Number(m.value));
        // every series is one process's: below what the test's own process holds, with room for growth
        for (const value of rss) expect(value).toBeLessThan(process.memoryUsage().rss * 1.5);
      }),
      { numRuns: 25 },
    );
  });
});

describe('/api/metrics across workers', () => {
  const report = (version: number, position: number, bytes: number) => ({
    process: processFigures(),
    data: { version, offers: 10 },
    caches: { bodies: { entries: 1, bytes, maxBytes: 100 } },
    streams: { open: { sse: 1, graphql: 0 }, position },
  });

  it('gives the lowest version and feed position, and sums sizes', () => {
    const combined = combineStats([report(7, 40, 10), report(6, 42, 5)], { primary: processFigures(), workers: 2 });
    expect(combined.data.version).toBe(6);
    expect(combined.streams).toMatchObject({ position: 40, open: { sse: 2, graphql: 0 } });
    expect(combined.caches).toEqual({ bodies: { entries: 2, bytes: 15, maxBytes: 200 } });
    expect(combined.cluster.each.map((w) => [w.dataVersion, w.streamPosition])).toEqual([
      [7, 40],
      [6, 42],
    ]);
  });
});
