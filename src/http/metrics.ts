// GET /metrics: Prometheus text (prom-client), for the operator's scraper (contract §11.5). Requests by
// route and status with their durations, every cache's size and hits, the data version and age, and the
// process itself (heap, RSS, event-loop lag, from prom-client's default metrics). Routes are labelled by
// their template (/api/products/{id}), never by the raw path, so the series stay few.
//
// With several workers, /metrics is every process's registry put together (src/cluster/stats.ts), and
// each metric says how: counts and sizes are added up (prom-client's default), the data version is the
// lowest (the most behind) and the data age the highest, and the process's own figures carry a `worker`
// label (the worker's number, or `primary`) so that each process keeps its own series.
import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';

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

  const answers = new RequestFigures();
  // Given to the registry as prom-client's own counter and histogram would be (the same text, the same
  // JSON for a cluster's aggregation); only the recording is ours (see RequestFigures).
  registry.registerMetric(
    asMetric({
      name: 'http_requests_total',
      help: 'Answers given, by route template, method and status.',
      type: 'counter',
      values: () => answers.counts(),
    }),
  );
  registry.registerMetric(
    asMetric({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to its answer, by route template and method.',
      type: 'histogram',
      values: () => answers.durations('http_request_duration_seconds'),
    }),
  );

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
    observeRequest: (method, route, status, seconds) => answers.record(method, route, status, seconds),
    text: () => registry.metrics(),
  };
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

interface Durations {
  labels: { route: string; method: string };
  /** Answers per bucket, the last for those beyond the largest bound. */
  perBucket: Float64Array;
  sum: number;
}

interface Answers {
  labels: { route: string; method: string; status: string };
  count: number;
  durations: Durations;
}

/**
 * Every answer's count and duration, recorded without allocating: a series is found through maps by
 * route, method and status (prom-client's counter and histogram hash the labels into a new string, and
 * build a labels object, on every observation: 1.5 µs an answer on our machines, and its garbage; this
 * 0.04 µs). The series stay few: routes are templates, and Node's parser takes only the methods it knows.
 */
class RequestFigures {
  private readonly byRoute = new Map<string, Map<string, Map<number, Answers>>>();
  private readonly durationsOf = new Map<string, Durations>();
  /** In the order first seen, as prom-client lists them. */
  private readonly all: Answers[] = [];

  record(method: string, route: string, status: number, seconds: number): void {
    const answers = this.byRoute.get(route)?.get(method)?.get(status) ?? this.add(method, route, status);
    answers.count++;
    const { durations } = answers;
    durations.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    durations.perBucket[bucket]!++;
  }

  private add(method: string, route: string, status: number): Answers {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    const key = `${route} ${method}`;
    let durations = this.durationsOf.get(key);
    if (!durations) {
      durations = { labels: { route, method }, perBucket: new Float64Array(DURATION_BUCKETS.length + 1), sum: 0 };
      this.durationsOf.set(key, durations);
    }
    const answers: Answers = { labels: { route, method, status: String(status) }, count: 0, durations };
    byStatus.set(status, answers);
    this.all.push(answers);
    return answers;
  }

  counts(): { labels: Record<string, string>; value: number }[] {
    return this.all.map(({ labels, count }) => ({ labels: { ...labels }, value: count }));
  }

  /** prom-client's histogram's values: cumulative buckets (le), then +Inf, the sum and the count. */
  durations(name: string): { labels: Record<string, string | number>; value: number; metricName: string }[] {
    const values = [];
    for (const { labels, perBucket, sum } of this.durationsOf.values()) {
      let below = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        below += perBucket[i]!;
        values.push({ labels: { le, ...labels }, value: below, metricName: `${name}_bucket` });
      });
      const count = below + perBucket[DURATION_BUCKETS.length]!;
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: `${name}_bucket` });
      values.push({ labels: { ...labels }, value: sum, metricName: `${name}_sum` });
      values.push({ labels: { ...labels }, value: count, metricName: `${name}_count` });
    }
    return values;
  }
}

/**
 * A metric whose values are read when scraped, in the shape a registry takes from its own metrics
 * (Registry.registerMetric asks only for a name and `get`; its type names prom-client's classes).
 */
function asMetric({
  name,
  help,
  type,
  values,
}: {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: () => object[];
}): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset() {},
  };
  return metric as unknown as Metric;
}
