// /api/metrics and /metrics across processes: each worker reports what a single process would, and the
// answer puts them together by what each figure means: sizes, bytes and counts are sums; a position in
// the data (its version, the change feed's newest event) is the lowest, the one every worker has
// reached; a process's own figures are listed (/api/metrics) or labelled (/metrics) per process.
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { PROCESS_LABEL } from '../http/metrics.js';

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export interface ProcessFigures {
  pid: number;
  /** The worker's number, as in its log lines and its `worker` label in /metrics; absent for the primary. */
  worker?: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  /** Memory outside the V8 heap that JavaScript objects hold: buffers (answers' bodies), WebAssembly aside. */
  externalMb: number;
  uptimeSeconds: number;
}

export function processFigures(): ProcessFigures {
  const memory = process.memoryUsage();
  return {
    pid: process.pid,
    ...(cluster.isWorker ? { worker: cluster.worker!.id } : {}),
    rssMb: mb(memory.rss),
    heapUsedMb: mb(memory.heapUsed),
    heapTotalMb: mb(memory.heapTotal),
    externalMb: mb(memory.external),
    uptimeSeconds: Math.round(process.uptime()),
  };
}

/** Positions in the data: every worker has reached the lowest, so that is what the service has reached. */
const POSITIONS = new Set(['version', 'position']);

/** Numbers added up leaf by leaf, positions the lowest; anything else taken from the first value that has it. */
export function sumDeep(values: readonly unknown[]): unknown {
  const present = values.filter((v) => v !== undefined && v !== null);
  if (present.length === 0) return undefined;
  if (present.every((v) => typeof v === 'number'))
    return Math.round((present as number[]).reduce((a, b) => a + b, 0) * 10) / 10;
  if (present.every((v) => typeof v === 'object' && !Array.isArray(v))) {
    const keys = new Set(present.flatMap((v) => Object.keys(v as object)));
    const of = (k: string) => present.map((v) => (v as Record<string, unknown>)[k]);
    return Object.fromEntries(
      [...keys].map((k) => {
        const numbers = of(k).filter((x) => typeof x === 'number');
        return [k, POSITIONS.has(k) && numbers.length > 0 ? Math.min(...numbers) : sumDeep(of(k))];
      }),
    );
  }
  return present[0];
}

interface WorkerStats {
  process: ProcessFigures;
  data: { version: number; offers: number };
  caches: Record<string, unknown>;
  streams: { position?: number } | null;
}

export function combineStats(
  values: readonly unknown[],
  { primary, workers }: { primary: ProcessFigures; workers: number },
) {
  // A worker still starting has nothing to report yet.
  const reports = values.filter(
    (v): v is WorkerStats => typeof v === 'object' && v !== null && 'process' in v && 'data' in v,
  );
  // The data of the worker furthest behind: what every worker serves, or something newer.
  const oldest = reports.reduce<WorkerStats['data'] | undefined>(
    (a, r) => (!a || r.data.version < a.version ? r.data : a),
    undefined,
  );
  const all = [primary, ...reports.map((r) => r.process)];
  return {
    process: {
      rssMb: mb(all.reduce((n, p) => n + p.rssMb * 1024 * 1024, 0)),
      heapUsedMb: mb(all.reduce((n, p) => n + p.heapUsedMb * 1024 * 1024, 0)),
      heapTotalMb: mb(all.reduce((n, p) => n + p.heapTotalMb * 1024 * 1024, 0)),
      externalMb: mb(all.reduce((n, p) => n + p.externalMb * 1024 * 1024, 0)),
      uptimeSeconds: primary.uptimeSeconds,
      processes: all.length,
    },
    data: oldest ?? { version: 0, offers: 0 },
    caches: sumDeep(reports.map((r) => r.caches)) ?? {},
    streams: sumDeep(reports.map((r) => r.streams)) ?? {},
    cluster: {
      workers,
      answered: reports.length,
      primary,
      each: reports.map((r) => ({
        ...r.process,
        dataVersion: r.data.version,
        streamPosition: r.streams?.position,
        caches: r.caches,
      })),
    },
  };
}

export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * /metrics of several processes: their registries (getMetricsAsJSON) put together by each metric's
 * aggregator (sum unless it says otherwise). A metric whose every series carries the process label is
 * one series per process, passed through as it is (prom-client's aggregators would drop some, such as
 * the start time).
 */
export function aggregateMetrics(registries: readonly MetricsJson[]): Promise<string> {
  const own = (metric: MetricsJson[number]) =>
    metric.values.every((v) => (v.labels as Record<string, unknown>)[PROCESS_LABEL] !== undefined);
  const byName = new Map<string, boolean>();
  for (const metric of registries.flat()) byName.set(metric.name, (byName.get(metric.name) ?? true) && own(metric));
  const marked = registries.map((metrics) =>
    metrics.map((m) => (byName.get(m.name) ? { ...m, aggregator: 'first' as const } : m)),
  );
  return AggregatorRegistry.aggregate(marked).metrics();
}
