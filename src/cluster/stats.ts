// /api/metrics across processes: each worker reports what a single process would, and the answer
// adds them up (sizes, bytes and counts are sums; the data version is the newest) and lists them.
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export interface ProcessFigures {
  pid: number;
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
    rssMb: mb(memory.rss),
    heapUsedMb: mb(memory.heapUsed),
    heapTotalMb: mb(memory.heapTotal),
    externalMb: mb(memory.external),
    uptimeSeconds: Math.round(process.uptime()),
  };
}

/** Numbers added up leaf by leaf; anything else taken from the first value that has it. */
export function sumDeep(values: readonly unknown[]): unknown {
  const present = values.filter((v) => v !== undefined && v !== null);
  if (present.length === 0) return undefined;
  if (present.every((v) => typeof v === 'number'))
    return Math.round((present as number[]).reduce((a, b) => a + b, 0) * 10) / 10;
  if (present.every((v) => typeof v === 'object' && !Array.isArray(v))) {
    const keys = new Set(present.flatMap((v) => Object.keys(v as object)));
    const of = (k: string) => present.map((v) => (v as Record<string, unknown>)[k]);
    // A data version is the same kind of thing in every process: the newest, not a sum.
    return Object.fromEntries(
      [...keys].map((k) => [
        k,
        k === 'version' ? Math.max(...(of(k).filter((x) => typeof x === 'number') as number[])) : sumDeep(of(k)),
      ]),
    );
  }
  return present[0];
}

interface WorkerStats {
  process: ProcessFigures;
  data: { version: number; offers: number };
  caches: Record<string, unknown>;
  streams: unknown;
}

export function combineStats(
  values: readonly unknown[],
  { primary, workers }: { primary: ProcessFigures; workers: number },
) {
  // A worker still starting has nothing to report yet.
  const reports = values.filter(
    (v): v is WorkerStats => typeof v === 'object' && v !== null && 'process' in v && 'data' in v,
  );
  const newest = reports.reduce<WorkerStats['data'] | undefined>(
    (a, r) => (!a || r.data.version > a.version ? r.data : a),
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
    data: newest ?? { version: 0, offers: 0 },
    caches: sumDeep(reports.map((r) => r.caches)) ?? {},
    streams: sumDeep(reports.map((r) => r.streams)) ?? {},
    cluster: {
      workers,
      answered: reports.length,
      primary,
      each: reports.map((r) => ({ ...r.process, dataVersion: r.data.version, caches: r.caches })),
    },
  };
}
