// npm run soak [-- --duration 60 --max-warm-up 300 --connections 64 --scale 1 --database-url URL --seed 1 --log FILE
//   --workers N]
// Mixed traffic against the compiled service on loopback for a fixed time, then it stops by itself:
// lists with random filters and amounts, details, exports, GraphQL, conditional requests and the
// database-backed endpoints, all valid, so every answer must be 200 or 304. Reports requests, errors,
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

interface Market {
  offerIds: string[];
  countries: string[];
  brandWords: string[];
  brandIds: string[];
  /** Popular URLs with their ETags, for conditional requests. */
  tagged: { path: string; etag: string }[];
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

async function survey(base: string): Promise<Market> {
  const offerIds: string[] = [];
  for (let page = 1; ; page++) {
    const list = await json<{ items: { id: string }[]; total: number }>(
      `${base}/api/products?type=all&fullDgs=false&includeIneligible=true&pageSize=500&page=${page}`,
    );
    offerIds.push(...list.items.map((i) => i.id));
    if (offerIds.length >= list.total || list.items.length === 0) break;
  }
  const institutions = await json<{
    items: { country: string; brands: { id: string; name: string }[] }[];
  }>(`${base}/api/institutions`);
  const brands = institutions.items.flatMap((i) => i.brands);
  const popular = [
    '/api/products',
    '/api/products?type=all',
    '/api/products?type=deposit&sort=effective',
    '/api/institutions',
    '/api/meta/last-updated',
    `/api/products/${offerIds[0]}`,
  ];
  const tagged = await Promise.all(
    popular.map(async (p) => ({
      path: p,
      etag: (await fetch(`${base}${p}`)).headers.get('etag') ?? '',
    })),
  );
  return {
    offerIds,
    countries: [...new Set(institutions.items.map((i) => i.country))],
    brandWords: [...new Set(brands.flatMap((b) => b.name.split(/\s+/)).filter((w) => w.length >= 3))],
    brandIds: brands.map((b) => b.id),
    tagged,
  };
}

type Kind = 'list' | 'detail' | 'export' | 'graphql' | 'conditional' | 'history' | 'other';
const MIX: [Kind, number][] = [
  ['list', 40],
  ['detail', 20],
  ['export', 3],
  ['graphql', 12],
  ['conditional', 15],
  ['history', 5],
  ['other', 5],
];

const amountOf = (rng: Rng) =>
  rng.chance(0.3)
    ? String(rng.pick([1000, 5000, 10000, 25000, 50000, 100000, 250000]))
    : (rng.int(100, 100_000_000) / 100).toFixed(2);

function listQuery(rng: Rng, m: Market): string {
  const q = new URLSearchParams({
    amount: amountOf(rng),
    type: rng.pick(['flexible', 'notice', 'deposit', 'all']),
  });
  const maybe = (p: number, name: string, value: () => string) => rng.chance(p) && q.set(name, value());
  maybe(0.3, 'horizon', () => String(rng.int(1, 120)));
  maybe(0.3, 'sort', () => rng.pick(['return', 'effective', 'headline', 'term', 'bank', 'country', 'verified', 'min']));
  maybe(0.2, 'order', () => rng.pick(['asc', 'desc']));
  maybe(0.2, 'channel', () => rng.pick(['all', 'direct', 'aggregator', 'platform']));
  maybe(0.2, 'country', () => Array.from({ length: rng.int(1, 3) }, () => rng.pick(m.countries)).join(','));
  maybe(0.1, 'dgsCountry', () => rng.pick(m.countries));
  maybe(0.2, 'fullDgs', () => rng.pick(['true', 'false']));
  maybe(0.1, 'withholding', () => rng.pick(['all', 'none', 'reducible', 'applicable']));
  maybe(0.15, 'promotions', () => rng.pick(['include', 'exclude', 'only']));
  maybe(0.1, 'newCustomers', () => rng.pick(['all', 'yes', 'no']));
  maybe(0.1, 'payout', () => rng.pick(['MONTHLY', 'QUARTERLY', 'ANNUALLY', 'AT_MATURITY', 'MONTHLY,ANNUALLY']));
  maybe(0.05, 'currentAccount', () => rng.pick(['all', 'no']));
  maybe(0.05, 'fees', () => rng.pick(['all', 'none']));
  maybe(0.05, 'earlyWithdrawal', () => rng.pick(['all', 'allowed']));
  maybe(0.1, 'freshness', () => rng.pick(['all', '24h', 'official', 'confirmed']));
  maybe(0.1, 'includeIneligible', () => rng.pick(['true', 'false']));
  maybe(0.1, 'zoek', () => rng.pick(m.brandWords));
  maybe(0.05, 'brand', () => rng.pick(m.brandIds));
  if (q.get('type') === 'deposit' || q.get('type') === 'all') {
    maybe(0.15, 'terms', () => rng.pick(['12', '6,12,24', '60']));
    maybe(0.1, 'termMin', () => String(rng.pick([1, 3, 12])));
    maybe(0.1, 'termMax', () => String(rng.pick([12, 24, 120])));
  }
  maybe(0.05, 'noticeMax', () => String(rng.pick([30, 90, 365])));
  maybe(0.2, 'page', () => String(rng.int(1, 3)));
  maybe(0.3, 'pageSize', () => String(rng.pick([10, 20, 50, 100, 500])));
  return q.toString();
}

function nextRequest(
  rng: Rng,
  m: Market,
): {
  kind: Kind;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
} {
  const kind = rng.weighted(MIX);
  switch (kind) {
    case 'list':
      return {
        kind,
        method: 'GET',
        path: `/api/products?${listQuery(rng, m)}`,
      };
    case 'detail':
      return {
        kind,
        method: 'GET',
        path:
          `/api/products/${encodeURIComponent(rng.pick(m.offerIds))}?amount=${amountOf(rng)}` +
          `${rng.chance(0.3) ? `&horizon=${rng.int(1, 60)}` : ''}`,
      };
    case 'export':
      return {
        kind,
        method: 'GET',
        path: `/api/products/export?${listQuery(rng, m)}`,
      };
    case 'graphql': {
      const query = rng.chance(0.5)
        ? 'query($a: Decimal!, $t: TypeFilter!) { products(amount: $a, type: $t, pageSize: 20) { total items { ' +
          'id name headlineRate dgs { covered uncovered } calc { comparableYield returnPerYear netInterest } ' +
          '} } }'
        : 'query($id: ID!, $a: Decimal!) { product(id: $id, amount: $a) { offer { id calc { netInterest steps { ' +
          'month interest closingBalance } } } history { validFrom headlineRate } events { kind at } } }';
      const variables = query.includes('products')
        ? {
            a: amountOf(rng),
            t: rng.pick(['FLEXIBLE', 'NOTICE', 'DEPOSIT', 'ALL']),
          }
        : { id: rng.pick(m.offerIds), a: amountOf(rng) };
      return {
        kind,
        method: 'POST',
        path: '/graphql',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      };
    }
    case 'conditional': {
      const t = rng.pick(m.tagged);
      return {
        kind,
        method: 'GET',
        path: t.path,
        headers: { 'if-none-match': t.etag },
      };
    }
    case 'history':
      return rng.weighted<{ kind: Kind; method: 'GET'; path: string }>([
        [
          {
            kind,
            method: 'GET',
            path: `/api/rates/history?offerId=${encodeURIComponent(rng.pick(m.offerIds))}&limit=${rng.int(1, 100)}`,
          },
          4,
        ],
        [
          {
            kind,
            method: 'GET',
            path:
              `/api/rates/history?type=${rng.pick(['all', 'flexible', 'deposit'])}&page=${rng.int(1, 20)}` +
              `&pageSize=${rng.pick([20, 100])}`,
          },
          4,
        ],
        [
          {
            kind,
            method: 'GET',
            path: `/api/rates/history?view=market&days=${rng.pick([30, 90, 365])}`,
          },
          1,
        ],
      ]);
    default:
      return {
        kind,
        method: 'GET',
        path: rng.pick([
          '/api/institutions',
          `/api/changes?limit=${rng.int(1, 200)}`,
          '/api/meta/last-updated',
          '/api/health',
          '/api/openapi.json',
        ]),
      };
  }
}

interface Phase {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  errors: number;
  statuses: Record<string, number>;
  mix: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

/** One stretch of the mixed traffic; every answer but 200/304, every socket error or timeout is an error. */
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
    .filter(([status]) => status !== 200 && status !== 304)
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
