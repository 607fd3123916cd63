// The request figures are recorded by our own arrays (metrics.ts: RequestFigures), and must read exactly
// as prom-client's own counter and histogram would: the same text for a scraper, the same JSON for a
// cluster's aggregation. prom-client's classes, fed the same answers, are the reference.
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const answer = fc.tuple(
  fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS', 'PROPFIND'),
  fc.constantFrom('/api/products', '/api/products/{id}', '/graphql', 'unmatched', '/metrics'),
  fc.constantFrom(200, 304, 400, 404, 429, 499, 503),
  // bucket bounds themselves (an answer of exactly 1 ms is in le=0.001), around them, and beyond the last
  fc.oneof(fc.constantFrom(...BUCKETS, 0, 12), fc.double({ min: 0, max: 15, noNaN: true })),
);

function reference(answers: [string, string, number, number][]) {
  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Answers given, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its answer, by route template and method.',
    labelNames: ['route', 'method'],
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of answers) {
    requests.inc({ route, method, status: String(status) });
    durations.observe({ route, method }, seconds);
  }
  return registry;
}

const ours = (answers: [string, string, number, number][]) => {
  const metrics = createMetrics({ caches: () => ({}), dataVersion: () => 1, dataAgeSeconds: () => null });
  for (const a of answers) metrics.observeRequest(...a);
  return metrics.registry;
};

const requestLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.includes('http_request'))
    .join('\n');

/** The JSON a cluster's primary aggregates, without what differs only in form (key order, empty exemplars). */
const requestJson = async (registry: Registry) =>
  (await registry.getMetricsAsJSON())
    .filter((m) => m.name.startsWith('http_request'))
    .map(({ name, help, type, aggregator, values }) => ({
      name,
      help,
      type,
      aggregator,
      values: values.map((v) => ({
        labels: v.labels,
        value: v.value,
        metricName: (v as { metricName?: string }).metricName,
      })),
    }));

describe('request figures', () => {
  it('read as prom-client’s counter and histogram fed the same answers, in text and JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { maxLength: 60 }), async (answers) => {
        const [mine, theirs] = [ours(answers), reference(answers)];
        expect(requestLines(await mine.metrics())).toBe(requestLines(await theirs.metrics()));
        expect(await requestJson(mine)).toEqual(await requestJson(theirs));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps counting after a scrape', async () => {
    const metrics = createMetrics({ caches: () => ({}), dataVersion: () => 1, dataAgeSeconds: () => null });
    metrics.observeRequest('GET', '/api/products', 200, 0.002);
    await metrics.text();
    metrics.observeRequest('GET', '/api/products', 200, 0.02);
    const text = await metrics.text();
    expect(text).toContain('http_requests_total{route="/api/products",method="GET",status="200"} 2');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",route="/api/products",method="GET"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.025",route="/api/products",method="GET"} 2');
    expect(text).toContain('http_request_duration_seconds_sum{route="/api/products",method="GET"} 0.022');
  });
});
