// GET /metrics: Prometheus text (prom-client), for the operator's scraper (contract §11.5). Requests by
// route and status with their durations, every cache's size and hits, the data version and age, and the
// process itself (heap, RSS, event-loop lag, from prom-client's default metrics). Routes are labelled by
// their template (/api/products/{id}), never by the raw path, so the series stay few.
//
// With several workers, /metrics is every process's registry put together (src/cluster/stats.ts), and
// each metric says how: counts and sizes are added up (prom-client's default), the data version is the
// lowest (the most behind) and the data age the highest, and the process's own figures carry a `worker`
// label (the worker's number, or `primary`) so that each process keeps its own series.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface MetricsSources {
  /** Sizes and hit counts of the caches, by cache name (see Services.caches). */
  caches(): Record<string, unknown>;
  dataVersion(): number;
  /** Seconds since the newest data was observed; null when there is none. */
  dataAgeSeconds(): number | null;
}

export interface Metrics {
  readonly registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  text(): Promise<string>;
  readonly contentType: string;
}

/** The numbers of a cache's stats that are sizes (gauges) and counts since start (counters). */
const SIZES = ['entries', 'bytes', 'maxEntries', 'maxBytes', 'max'] as const;
const COUNTS = ['hits', 'misses', 'evictions'] as const;

/** The label every process metric carries in a cluster: whose process it is. */
export const PROCESS_LABEL = 'worker';

/** The process's own figures (heap, RSS, CPU, event loop, GC), labelled with whose process it is in a cluster. */
export function processRegistry(worker?: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, ...(worker ? { labels: { [PROCESS_LABEL]: worker } } : {}) });
  return registry;
}

/** `worker`: this process's label in a cluster (its worker number); none for a single process. */
export function createMetrics(sources: MetricsSources, { worker }: { worker?: string } = {}): Metrics {
  const registry = processRegistry(worker);

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
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const seriesOf = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; duration: ReturnType<typeof durations.labels> }
  >();

  const numbers = (stats: unknown): Record<string, number> =>
    Object.fromEntries(
      Object.entries((stats ?? {}) as Record<string, unknown>).filter(
        (e): e is [string, number] => typeof e[1] === 'number',
      ),
    );

  new Gauge({
    name: 'savings_cache_size',
    help:
      'Each cache now: entries and bytes held, and its bounds (what=entries|bytes|maxEntries|maxBytes|max); with ' +
      'several workers, the sum of theirs (each has its own caches).',
    labelNames: ['cache', 'what'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, stats] of Object.entries(sources.caches())) {
        const n = numbers(stats);
        for (const what of SIZES) if (what in n) this.set({ cache, what }, n[what]!);
      }
    },
  });
  // Counts since start, kept by the caches themselves: the counter follows them by difference.
  const seen = new Map<string, number>();
  new Counter({
    name: 'savings_cache_events_total',
    help: 'Cache lookups that hit or missed, and entries evicted, since start (event=hits|misses|evictions).',
    labelNames: ['cache', 'event'],
    registers: [registry],
    collect() {
      for (const [cache, stats] of Object.entries(sources.caches())) {
        const n = numbers(stats);
        for (const event of COUNTS) {
          if (!(event in n)) continue;
          const key = `${cache}|${event}`;
          const delta = n[event]! - (seen.get(key) ?? 0);
          if (delta > 0) this.inc({ cache, event }, delta);
          seen.set(key, n[event]!);
        }
      }
    },
  });
  new Gauge({
    name: 'savings_data_version',
    help:
      'The data version being served (it increases with every ingest that changed something); with several ' +
      'workers, the lowest: every worker serves this version or a newer one.',
    registers: [registry],
    aggregator: 'min',
    collect() {
      this.set(sources.dataVersion());
    },
  });
  new Gauge({
    name: 'savings_data_age_seconds',
    help:
      'Seconds since the newest data served was observed (absent without data); with several workers, the ' +
      'oldest data any of them serves.',
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      const age = sources.dataAgeSeconds();
      if (age !== null) this.set(age);
    },
  });

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(method, route, status, seconds) {
      // Each label set's series looked up once: prom-client hashes the labels on every inc/observe.
      const key = `${route} ${method} ${status}`;
      let series = seriesOf.get(key);
      if (!series) {
        if (seriesOf.size >= 10_000) seriesOf.clear(); // routes are templates: only odd methods come here
        series = {
          count: requests.labels({ route, method, status: String(status) }),
          duration: durations.labels({ route, method }),
        };
        seriesOf.set(key, series);
      }
      series.count.inc();
      series.duration.observe(seconds);
    },
    text: () => registry.metrics(),
  };
}
