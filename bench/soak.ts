// npm run soak [-- --duration 60 --max-warm-up 300 --connections 64 --scale 1 --database-url URL --seed 1 --log FILE
//   --workers N]
// Mixed traffic against the compiled service on loopback for a fixed time, then it stops by itself:
// lists with random filters and amounts, details, exports, GraphQL, conditional requests and the
// database-backed endpoints, all valid, so every answer must be 200 or 304, or 503 when the service refuses
// for load (README, "Overload": counted apart, as refused). Reports requests, errors, refusals,
// latency percentiles and the service's resident memory (from /proc). The same traffic first runs as a
// warm-up, in 15 s rounds, until the service's bounded caches are full (the calculator and the body
// cache have both started evicting and the database reads' cache is 90 % full, per /api/metrics) and
// resident memory grew less than 3 % over the last round: before that, memory grows by design. Then the
// measured phase, whose memory at start and end is compared. Then SIGTERM, which must
// exit 0. Exits 1 when any check fails (an error in either phase, memory growth > 10 %).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { Rng } from '../src/sample/random.js';
import { json, nextRequest, survey, type Kind, type Market } from './mix.js';
import { root, rssMbOf, startService } from './service.js';
import { arg } from './support.js';
import type { ProcessFigures } from '../src/cluster/stats.js';

const duration = Number(arg('duration', '60'));
const connections = Number(arg('connections', '64'));
const scale = Number(arg('scale', '1'));
const days = Number(arg('days', scale === 1 ? '400' : '30'));
const databaseUrl = arg('database-url', '');
const seed = Number(arg('seed', '1'));
const logFile = arg('log', '');
const maxWarmUpSeconds = Number(arg('max-warm-up', '300'));
/** Serving processes (default: the service's own default). */
const workers = arg('workers', '');
/** Growth of resident memory over a warm-up round below which it counts as settled. */
const SETTLED_GROWTH = 0.03;
const WARM_UP_ROUND_SECONDS = 15;

interface Phase {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  errors: number;
  statuses: Record<string, number>;
  mix: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

/**
 * One stretch of the mixed traffic; every answer but 200/304 (and 503, a refusal for load), every socket
 * error or timeout is an error.
 */
async function traffic(base: string, market: Market, rng: Rng, seconds: number): Promise<Phase> {
  const statuses = new Map<number, number>();
  const kinds = new Map<Kind, number>();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        timeout: 30,
        requests: [
          {
            setupRequest: (req: autocannon.Request) => {
              const next = nextRequest(rng, market);
              kinds.set(next.kind, (kinds.get(next.kind) ?? 0) + 1);
              return {
                ...req,
                method: next.method,
                path: next.path,
                headers: next.headers ?? {},
                body: next.body ?? '',
              } as autocannon.Request;
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, status: number) =>
      statuses.set(status, (statuses.get(status) ?? 0) + 1),
    );
  });
  const unexpected = [...statuses]
    .filter(([status]) => status !== 200 && status !== 304 && status !== 503)
    .reduce((n, [, count]) => n + count, 0);
  return {
    seconds,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    errors: unexpected + result.errors + result.timeouts,
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    mix: Object.fromEntries(kinds),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
  };
}

/** Warm-up rounds as one phase: counts added up, percentiles the worst round's (an upper bound). */
function combine(rounds: Phase[]): Phase {
  const add = (pick: (p: Phase) => Record<string, number>) =>
    rounds.reduce<Record<string, number>>((sum, p) => {
      for (const [k, v] of Object.entries(pick(p))) sum[k] = (sum[k] ?? 0) + v;
      return sum;
    }, {});
  const seconds = rounds.reduce((n, p) => n + p.seconds, 0);
  const requests = rounds.reduce((n, p) => n + p.requests, 0);
  const worst = (k: keyof Phase['latencyMs']) => Math.max(...rounds.map((p) => p.latencyMs[k]));
  return {
    seconds,
    requests,
    requestsPerSecond: Math.round(requests / seconds),
    errors: rounds.reduce((n, p) => n + p.errors, 0),
    statuses: add((p) => p.statuses),
    mix: add((p) => p.mix),
    latencyMs: { p50: worst('p50'), p90: worst('p90'), p99: worst('p99'), max: worst('max') },
  };
}

const describe = (name: string, p: Phase) =>
  [
    `  ${name}: ${p.seconds} s, ${p.requests} requests (${p.requestsPerSecond}/s), errors ${p.errors}; ` +
      `statuses ${JSON.stringify(p.statuses)}`,
    `    latency p50 ${p.latencyMs.p50} ms, p90 ${p.latencyMs.p90} ms, p99 ${p.latencyMs.p99} ms, max ` +
      `${p.latencyMs.max} ms`,
  ].join('\n');

async function main() {
  const service = await startService({
    scale,
    days,
    ...(databaseUrl ? { databaseUrl } : {}),
    env: { MAX_DATA_AGE_HOURS: '87600', ...(workers ? { WORKERS: workers } : {}) },
    ...(logFile ? { logFile } : {}),
  });
  const { base, pid } = service;
  let exitCode: number | null = null;
  try {
    const market = await survey(base);
    const rssBeforeTraffic = await rssMbOf(pid);
    const started = Date.now();
    const rss: { t: number; mb: number }[] = [];
    const sampler = setInterval(
      () =>
        void rssMbOf(pid).then(
          (mb) => rss.push({ t: (Date.now() - started) / 1000, mb }),
          () => {},
        ),
      1000,
    );
    // What the service says about itself every 5 s: where memory goes (heap vs caches) if it grows.
    const metrics: { t: number; heapUsedMb: number; heapTotalMb: number; caches: unknown }[] = [];
    const metricsSampler = setInterval(
      () =>
        void fetch(`${base}/api/metrics`)
          .then((r) => r.json() as Promise<{ process: { heapUsedMb: number; heapTotalMb: number }; caches: unknown }>)
          .then(
            (m) =>
              metrics.push({
                t: (Date.now() - started) / 1000,
                heapUsedMb: m.process.heapUsedMb,
                heapTotalMb: m.process.heapTotalMb,
                caches: m.caches,
              }),
            () => {},
          ),
      5000,
    );

    const rng = new Rng(seed);
    const cachesFull = async () => {
      const m = await json<{
        caches: {
          calculator: { evictions: number };
          bodies: { evictions: number };
          history: { bytes: number; maxBytes: number };
        };
      }>(`${base}/api/metrics`);
      const { calculator, bodies, history } = m.caches;
      return calculator.evictions > 0 && bodies.evictions > 0 && history.bytes >= 0.9 * history.maxBytes;
    };
    // Warm until the caches are full and resident memory has settled: a heap grows toward the limit its
    // share sets (garbage included) for a while after the caches are full.
    const rounds: Phase[] = [];
    let settled = false;
    while (rounds.length * WARM_UP_ROUND_SECONDS < maxWarmUpSeconds && !(settled && (await cachesFull()))) {
      const before = await rssMbOf(pid);
      rounds.push(await traffic(base, market, rng, WARM_UP_ROUND_SECONDS));
      settled = (await rssMbOf(pid)) <= before * (1 + SETTLED_GROWTH);
    }
    const warmUp = rounds.length > 0 ? combine(rounds) : null;
    const warmedUp = settled && (await cachesFull());
    const rssAtStart = await rssMbOf(pid);
    const measured = await traffic(base, market, rng, duration);
    const rssAtEnd = await rssMbOf(pid);
    clearInterval(sampler);
    clearInterval(metricsSampler);
    const lastMetrics = await json<{ caches: unknown; cluster?: { primary: ProcessFigures; each: ProcessFigures[] } }>(
      `${base}/api/metrics`,
    ).catch(() => null);
    // Where the memory is, process by process (a single process reports no cluster).
    const processes = lastMetrics?.cluster ? [lastMetrics.cluster.primary, ...lastMetrics.cluster.each] : [];
    exitCode = await service.stop();

    const peak = Math.max(...rss.map((s) => s.mb), rssAtEnd);
    const growth = Math.round(((rssAtEnd - rssAtStart) / rssAtStart) * 1000) / 10;
    const errors = measured.errors + (warmUp?.errors ?? 0);
    const summary = {
      at: new Date().toISOString(),
      database: service.database,
      scale,
      days,
      seed,
      connections,
      warmUp,
      cachesFullAfterWarmUp: warmedUp,
      measured,
      errors,
      rssMb: {
        beforeTraffic: rssBeforeTraffic,
        measuredStart: rssAtStart,
        measuredEnd: rssAtEnd,
        peak,
        growthPercent: growth,
      },
      caches: lastMetrics?.caches ?? null,
      processes,
      shutdownExitCode: exitCode,
      rssSeries: rss,
      metricsSeries: metrics,
    };
    await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
    const file = path.join(
      root,
      'bench',
      'results',
      `soak-${summary.database}-${summary.at.replace(/[:.]/g, '-')}.json`,
    );
    await writeFile(file, JSON.stringify(summary, null, 2));
    console.log(
      [
        `soak: ${connections} connections, ${service.database} database, scale ${scale}`,
        ...(warmUp
          ? [
              describe(
                `warm-up (until the caches were full and memory settled` +
                  `${warmedUp ? '' : ': NOT reached by max-warm-up'}; worst round's percentiles)`,
                warmUp,
              ),
            ]
          : []),
        describe('measured', measured),
        `    mix ${JSON.stringify(measured.mix)}`,
        `  resident memory ${rssBeforeTraffic} MB before traffic, ${rssAtStart} MB at the start of the ` +
          `measured run, ${rssAtEnd} MB at its end (${growth >= 0 ? '+' : ''}${growth} %), peak ${peak} MB`,
        ...processes.map(
          (p, i) =>
            `    ${i === 0 ? 'primary' : `worker ${i}`} (pid ${p.pid}): resident ${p.rssMb} MB, V8 heap ` +
            `${p.heapUsedMb} MB used of ${p.heapTotalMb} MB, outside the heap ${p.externalMb} MB`,
        ),
        `  caches at the end ${JSON.stringify(summary.caches)}`,
        `  SIGTERM: exit ${exitCode}`,
        `  written to ${path.relative(root, file)}`,
      ].join('\n'),
    );
    const failed = [
      errors > 0 && `${errors} errors`,
      growth > 10 && `memory grew ${growth} % during the measured run`,
      exitCode !== 0 && `exit code ${exitCode} on SIGTERM`,
    ].filter(Boolean);
    if (failed.length > 0) {
      console.error(`soak FAILED: ${failed.join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    if (exitCode === null) await service.stop();
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
