// npm run bench:overload [-- --seconds 20 --levels 0.5,1,2,4 --scale 1 --workers N --seed 1 --log FILE
//   --capacity N --cached-loop-everywhere]
// The service under open-loop load: clients arrive at a fixed rate whatever its latency, as real traffic
// does (a closed-loop benchmark waits for each answer before the next request and so never overloads).
//  1. Capacity: the soak's mix, closed loop at 16 connections after a warm-up: answers per second. Given
//     (--capacity), it is not measured: two builds compared at the same arrival rates.
//  2. For each level (× capacity): the same mix sent at that fixed rate for `seconds`, with probes beside
//     it: /api/health, /metrics and the cached list every 100 ms; and where the mix overloads (above 1×),
//     the cached list also in a closed loop (its throughput against the same loop on the idle service). Not
//     below: a closed loop takes every cycle the mix leaves, so "half the capacity" with one beside it is
//     a saturated service, and whether half the capacity is refused would be measured at full load
//     (--cached-loop-everywhere: beside every level, as this bench did before). Reported: admitted
//     answers' latency (from the instant each request was due, so a late generator shows up as latency,
//     not as a lower rate), the refused share and how fast refusals came, errors (anything but 200, 304
//     and 503, socket errors, 10 s timeouts), resident memory, the worker processes (a restart changes
//     them).
//  3. Eight clients each sending four hard savings plans at once, the probes beside them; then one client
//     that disconnects after 200 ms, and how long its searches took to stop (the lane's figure).
//  Beside each latency the client sees, the service's own: its log's durationMs for the same answers (from
//  the moment it read the request to its last byte), so that the time a request waited to be read (the
//  event loop busy with others, the CPU shared with the generator) shows apart from the work of answering.
//  4. The generator itself: the highest level's rate against the bare server (bench/bare.ts), which does
//     no work: the rate it kept and its lateness, so the figures above are the service's, not the generator's.
// Writes bench/results/overload-<date>.json; prints a table.
import http from 'node:http';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Rng } from '../src/sample/random.js';
import { startBare } from './bare-server.js';
import { nextRequest, survey, type Market } from './mix.js';
import { probeInThread } from './probe.js';
import { descendantsOf, root, rssMbOf, startService } from './service.js';
import { arg, percentile } from './support.js';
import { hardPlans } from '../test/support/hard-plans.js';

const seconds = Number(arg('seconds', '20'));
const levels = arg('levels', '0.5,1,2,4').split(',').map(Number);
const scale = Number(arg('scale', '1'));
const days = Number(arg('days', scale === 1 ? '400' : '30'));
const workers = arg('workers', '');
const seed = Number(arg('seed', '1'));
// The service's log is read for its own timings (below): kept where asked, else in a temporary file.
const keptLog = arg('log', '');
const logFile = keptLog || path.join(os.tmpdir(), `overload-service-${process.pid}.log`);
let failed = false;
const givenCapacity = Number(arg('capacity', '0'));
const CLIENT_TIMEOUT_MS = 10_000;
const CACHED = '/api/products?amount=25000';
const cachedLoopEverywhere = process.argv.includes('--cached-loop-everywhere');

interface Request {
  kind: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Outcome {
  /** The mix's kind of request (list, detail, export …). */
  kind: string;
  status: number; // 0: a socket error or a timeout (`error` says which)
  error?: string;
  /** For an error: the request, and whether it went on a connection an earlier request had used. */
  what?: string;
  /** From the instant the request was due to the end of its answer. */
  ms: number;
}

// The agent's own timeout makes it keep an idle connection no longer than the service's Keep-Alive hint (5 s,
// less a second): Node's Agent honours the hint only below a timeout of its own, and with none it kept idle
// connections past the service's 10 s, then now and then sent a request on one the service had just closed
// (ECONNRESET on a reused connection, the request never read: 3 in two runs).
const agent = new http.Agent({
  keepAlive: true,
  maxSockets: Infinity,
  maxFreeSockets: 4096,
  timeout: CLIENT_TIMEOUT_MS,
});

function send(base: URL, r: Request, due: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: r.method,
        path: r.path,
        agent,
        headers: { ...r.headers, ...(r.body ? { 'content-length': Buffer.byteLength(r.body) } : {}) },
        timeout: CLIENT_TIMEOUT_MS,
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve({ kind: r.kind, status: res.statusCode ?? 0, ms: performance.now() - due }));
        res.on('error', () => resolve({ kind: r.kind, status: 0, ms: performance.now() - due }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: Error & { code?: string }) =>
      resolve({
        kind: r.kind,
        status: 0,
        error: err.code ?? err.message,
        what: `${r.method} ${r.path.slice(0, 80)}${req.reusedSocket ? ' (reused connection)' : ''}`,
        ms: performance.now() - due,
      }),
    );
    req.end(r.body);
  });
}

interface OpenLoop {
  outcomes: Outcome[];
  /** How late the generator sent requests after they were due (ms). */
  lateness: number[];
  /** Requests sent per second over the run, as the generator kept it. */
  sentPerSecond: number;
  generatorCpuMs: number;
}

/** `rate` requests per second for `secs`, each sent when due whether or not earlier ones were answered. */
async function openLoop(base: string, rate: number, secs: number, next: () => Request): Promise<OpenLoop> {
  const url = new URL(base);
  const total = Math.round(rate * secs);
  const pending: Promise<Outcome>[] = [];
  const lateness: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) / 1000) * rate) + 1);
      while (pending.length < due) {
        const at = start + (pending.length * 1000) / rate;
        lateness.push(now - at);
        pending.push(send(url, next(), at));
      }
      if (pending.length < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const sentIn = (performance.now() - start) / 1000;
  const outcomes = await Promise.all(pending);
  const used = process.cpuUsage(cpu);
  return {
    outcomes,
    lateness,
    sentPerSecond: Math.round(total / sentIn),
    generatorCpuMs: Math.round((used.user + used.system) / 1000),
  };
}

/** A URL asked every `everyMs` until stopped, from a thread of its own (probe.ts): its latencies. */
function probe(base: string, target: string, everyMs: number) {
  const asking = probeInThread(Number(new URL(base).port), target, everyMs, 30_000);
  return {
    async stop() {
      const answers = await asking.stop();
      const failures = answers.filter((a) => a.error !== undefined || a.status !== 200).length;
      return { ...summary(answers.map((a) => a.ms)), failures };
    },
  };
}

/**
 * The cached list in a closed loop (2 connections): answers per second while it runs. It shares the
 * generator's thread on purpose: in a thread of its own it sends thousands a second, a load of its own
 * that takes the CPU the levels are measured on.
 */
function cachedThroughput(base: string, secs: number): Promise<number> {
  return new Promise((resolve, reject) =>
    autocannon({ url: `${base}${CACHED}`, connections: 2, duration: secs }, (err, res) =>
      err ? reject(err) : resolve(Math.round(res.requests.average)),
    ),
  );
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** What the service reports of its load (one process): the bound of work in progress, the CPU lane. */
interface Load {
  inFlight?: { limit: number; refused: { full: number; waited: number } };
  lane?: { running: number };
}

async function loadOf(base: string): Promise<Load | null> {
  return ((await (await fetch(`${base}/api/metrics`)).json()) as { load?: Load }).load ?? null;
}

/** The bound's figures, or null when the service does not answer them (a sample missed, not a failed run). */
const boundFigures = (base: string) =>
  loadOf(base).then(
    (load) => load?.inFlight ?? null,
    () => null,
  );

function byKind(outcomes: readonly Outcome[]) {
  const kinds = new Map<string, number[]>();
  for (const o of outcomes) {
    const ms = kinds.get(o.kind);
    if (ms) ms.push(o.ms);
    else kinds.set(o.kind, [o.ms]);
  }
  return Object.fromEntries([...kinds].sort(([a], [b]) => a.localeCompare(b)).map(([k, ms]) => [k, summary(ms)]));
}
function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { n: 0, p50: 0, p99: 0, max: 0 };
  return {
    n: sorted.length,
    p50: round1(percentile(sorted, 50)),
    p99: round1(percentile(sorted, 99)),
    max: round1(sorted.at(-1)!),
  };
}

interface LogLine {
  time: number;
  path?: string;
  query?: string;
  status?: number;
  durationMs?: number;
}

/** The service's log lines that carry a duration (one per answer), read once every phase's lines are written. */
async function answeredLines(): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  for (const text of (await readFile(logFile, 'utf8')).split('\n')) {
    if (text.includes('"durationMs"')) lines.push(JSON.parse(text) as LogLine);
  }
  return lines;
}

/**
 * The service's own time for the answers logged between `from` and `to` (epoch ms): refusals (503 for load),
 * health, the metrics and the cached list, from the request line read to the last byte written.
 */
function serviceTimes(logged: readonly LogLine[], from: number, to: number) {
  const lines = logged.filter((l) => l.time >= from && l.time <= to);
  const of = (keep: (l: LogLine) => boolean) => summary(lines.filter(keep).map((l) => l.durationMs ?? 0));
  return {
    refusalMs: of((l) => l.status === 503 && l.path !== '/api/health'),
    healthMs: of((l) => l.path === '/api/health'),
    metricsMs: of((l) => l.path === '/metrics'),
    cachedListMs: of((l) => `${l.path}${l.query ?? ''}` === CACHED),
  };
}

/** The soak's mix, closed loop at 16 connections: answers (200, 304) per second. */
function closedLoop(base: string, market: Market, rng: Rng, secs: number): Promise<number> {
  let answered = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: base,
        connections: 16,
        duration: secs,
        timeout: 30,
        requests: [
          {
            setupRequest: (req: autocannon.Request) => {
              const r = nextRequest(rng, market);
              return { ...req, method: r.method, path: r.path, headers: r.headers ?? {}, body: r.body ?? '' };
            },
          },
        ],
      },
      (err) => (err ? reject(err) : resolve(Math.round(answered / secs))),
    );
    instance.on('response', (_c: unknown, status: number) => {
      if (status === 200 || status === 304) answered++;
    });
  });
}

async function main() {
  const service = await startService({
    scale,
    days,
    env: { MAX_DATA_AGE_HOURS: '87600', ...(workers ? { WORKERS: workers } : {}) },
    logFile,
  });
  const { base, pid } = service;
  const processes = async () => [pid, ...(await descendantsOf(pid)).sort((a, b) => a - b)].join(',');
  try {
    const market = await survey(base);
    const rng = new Rng(seed);
    console.error('warm-up: the soak mix, closed loop, 30 s');
    await closedLoop(base, market, rng, 30);
    const measured = await closedLoop(base, market, rng, 20);
    const capacity = givenCapacity > 0 ? givenCapacity : measured;
    if (givenCapacity > 0) console.error(`capacity measured ${measured} answers/s; levels from the given ${capacity}`);
    const cachedIdle = await cachedThroughput(base, 5);
    console.error(`capacity ${capacity} answers/s; the cached list alone ${cachedIdle}/s`);
    const workersAtStart = await processes();

    const rows = [];
    for (const level of levels) {
      const rate = Math.round(level * capacity);
      const health = probe(base, '/api/health', 100);
      const metrics = probe(base, '/metrics', 100);
      const rssBefore = await rssMbOf(pid);
      const rss: number[] = [];
      const sampler = setInterval(() => void rssMbOf(pid).then((mb) => rss.push(mb)), 1000);
      const cachedProbe = probe(base, CACHED, 100);
      const cached =
        level > 1 || cachedLoopEverywhere ? cachedThroughput(base, Math.max(1, seconds - 2)) : Promise.resolve(null);
      const boundBefore = await boundFigures(base);
      const limits: number[] = [];
      const limitSampler = setInterval(() => void boundFigures(base).then((b) => b && limits.push(b.limit)), 250);
      const began = Date.now();
      const run = await openLoop(base, rate, seconds, () => nextRequest(rng, market));
      const ended = Date.now();
      clearInterval(sampler);
      clearInterval(limitSampler);
      const boundAfter = await boundFigures(base);
      const statuses: Record<string, number> = {};
      for (const o of run.outcomes) {
        const key = o.status === 0 ? `error ${o.error}` : String(o.status);
        statuses[key] = (statuses[key] ?? 0) + 1;
      }
      const admitted = run.outcomes.filter((o) => o.status === 200 || o.status === 304).map((o) => o.ms);
      const refused = run.outcomes.filter((o) => o.status === 503).map((o) => o.ms);
      const row = {
        level,
        rate,
        window: { from: began, to: ended },
        sentPerSecond: run.sentPerSecond,
        generatorLatenessMs: summary(run.lateness),
        generatorCpuMs: run.generatorCpuMs,
        statuses,
        errorSamples: run.outcomes
          .filter((o) => o.status === 0)
          .slice(0, 10)
          .map((o) => `${o.error}: ${o.what}`),
        admittedMs: summary(admitted),
        // which kinds make the tail: a slow kind's own work, or every kind waiting alike
        admittedByKindMs: byKind(run.outcomes.filter((o) => o.status === 200 || o.status === 304)),
        admittedPerSecond: Math.round(admitted.length / seconds),
        refusedShare: round1((100 * refused.length) / run.outcomes.length),
        refusalMs: summary(refused),
        errors: run.outcomes.length - admitted.length - refused.length,
        healthMs: await health.stop(),
        metricsMs: await metrics.stop(),
        cachedPerSecond: await cached,
        cachedMs: await cachedProbe.stop(),
        rssMb: { before: rssBefore, max: Math.max(rssBefore, ...rss), after: await rssMbOf(pid) },
        // why the refusals came: a full queue or a wait over; the bound as it adapted (sampled every 250 ms)
        bound: boundBefore &&
          boundAfter && {
            refusedFull: boundAfter.refused.full - boundBefore.refused.full,
            refusedWaited: boundAfter.refused.waited - boundBefore.refused.waited,
            limitMin: Math.min(...limits),
            limitMedian: limits.sort((a, b) => a - b)[Math.floor(limits.length / 2)] ?? null,
          },
      };
      rows.push(row);
      if (row.errors > 0) failed = true;
      console.error(JSON.stringify(row));
      // the line clears before the next level
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
    const workersAfterLevels = await processes();

    // Eight clients, each four hard plans at once (test/support/hard-plans.ts), with the probes beside them.
    const post = (query: string, signal?: AbortSignal) =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
        signal,
      });
    const plansBegan = Date.now();
    const cachedProbe = probe(base, CACHED, 20);
    const healthProbe = probe(base, '/api/health', 20);
    const planAnswers = await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        const asked = performance.now();
        const res = await post(hardPlans(client));
        const body = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
        const ms = Math.round(performance.now() - asked);
        return { status: res.status, ms, error: body.errors?.[0]?.extensions?.code ?? null };
      }),
    );
    const plans = {
      answers: planAnswers,
      cachedListMs: await cachedProbe.stop(),
      healthMs: await healthProbe.stop(),
    };
    const plansEnded = Date.now();
    // One client that goes after 200 ms: how long until the lane has nothing running.
    const lane = async () => (await loadOf(base))?.lane?.running ?? 0;
    const controller = new AbortController();
    const abandoned = post(hardPlans(99), controller.signal).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const runningAtAbort = await lane();
    controller.abort();
    const abortedAt = performance.now();
    await abandoned;
    while ((await lane()) > 0 && performance.now() - abortedAt < 10_000);
    const stoppedMs = Math.round(performance.now() - abortedAt);
    const workersAtEnd = await processes();
    // the service's own times, its log read once: its lines wait at most a second before they are written
    // (src/logger.ts), and the plans' last came a moment ago
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const logged = await answeredLines();
    const ownTimes = rows.map((r) => serviceTimes(logged, r.window.from, r.window.to));
    const plansOwnTimes = serviceTimes(logged, plansBegan, plansEnded);

    // The generator against the bare server at the highest rate: what it keeps when the server does no work.
    const topRate = Math.round(Math.max(...levels) * capacity);
    const bare = await startBare(
      base,
      [
        { connections: 1, method: 'GET', path: '/api/health' },
        { connections: 1, method: 'GET', path: CACHED },
      ],
      1,
      path.join(root, 'bench', 'results', 'overload-bare.json'),
    );
    // The cached list's closed loop shares the generator's thread: against the bare server, alone and then
    // beside the open loop, it shows how much of that throughput the generator itself leaves, whatever the
    // server does (the ceiling of the levels' cached/s figures).
    const bareCachedIdle = await cachedThroughput(bare.base, 5);
    const bareCachedLoaded = cachedThroughput(bare.base, 4);
    const bareRun = await openLoop(bare.base, topRate, 5, () => ({
      kind: 'health',
      method: 'GET',
      path: '/api/health',
    }));
    const bareCached = { idle: bareCachedIdle, beside: await bareCachedLoaded };
    bare.stop();
    const generator = {
      rate: topRate,
      sentPerSecond: bareRun.sentPerSecond,
      latenessMs: summary(bareRun.lateness),
      answerMs: summary(bareRun.outcomes.map((o) => o.ms)),
      errors: bareRun.outcomes.filter((o) => o.status !== 200).length,
      generatorCpuMs: bareRun.generatorCpuMs,
      cachedPerSecond: bareCached,
    };

    const exitCode = await service.stop();
    const result = {
      at: new Date().toISOString(),
      database: service.database,
      workers: workers || 'default',
      scale,
      days,
      seconds,
      capacity,
      cachedIdlePerSecond: cachedIdle,
      levels: rows.map((r, i) => ({ ...r, service: ownTimes[i] })),
      processes: { atStart: workersAtStart, afterLevels: workersAfterLevels, atEnd: workersAtEnd },
      hardPlans: { ...plans, service: plansOwnTimes, disconnect: { runningAtAbort, stoppedMs } },
      generator,
      exitCode,
    };
    await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
    const file = path.join(root, 'bench', 'results', `overload-${result.at.slice(0, 19).replace(/:/g, '')}.json`);
    await writeFile(file, JSON.stringify(result, null, 2));

    const table = rows.map((r, i) => ({
      '× capacity': r.level,
      'rate/s': `${r.rate} (sent ${r.sentPerSecond})`,
      'admitted/s': r.admittedPerSecond,
      'admitted p50/p99 ms': `${r.admittedMs.p50} / ${r.admittedMs.p99}`,
      'refused %': r.refusedShare,
      'refusal p50/p99 ms (in service)': `${r.refusalMs.p50} / ${r.refusalMs.p99} (${ownTimes[i]!.refusalMs.p99})`,
      'full / waited, bound min/med': r.bound
        ? `${r.bound.refusedFull} / ${r.bound.refusedWaited}, ${r.bound.limitMin}/${r.bound.limitMedian}`
        : '–',
      errors: r.errors,
      'health p99 ms (in service)': `${r.healthMs.p99} (${ownTimes[i]!.healthMs.p99})`,
      'metrics p99 ms (in service)': `${r.metricsMs.p99} (${ownTimes[i]!.metricsMs.p99})`,
      'cached/s (idle), p99 ms': `${r.cachedPerSecond ?? '–'} (${cachedIdle}), ${r.cachedMs.p99}`,
      'RSS MB before/max/after': `${r.rssMb.before} / ${r.rssMb.max} / ${r.rssMb.after}`,
    }));
    console.log(`capacity (soak mix, closed loop, 16 connections): ${capacity} answers/s`);
    console.table(table);
    for (const r of rows) {
      const kinds = Object.entries(r.admittedByKindMs).map(([k, v]) => `${k} ${v.p50} / ${v.p99} (${v.n})`);
      console.log(`${r.level}× admitted p50 / p99 ms by kind: ${kinds.join(', ')}`);
    }
    console.log(
      `hard plans (8 × 4): answers ${JSON.stringify(planAnswers)}; ` +
        `cached list ${JSON.stringify(plans.cachedListMs)} ` +
        `(in service ${JSON.stringify(plansOwnTimes.cachedListMs)}); ` +
        `health ${JSON.stringify(plans.healthMs)} (in service ${JSON.stringify(plansOwnTimes.healthMs)})`,
    );
    console.log(`a client gone after 200 ms: ${runningAtAbort} searches running, stopped ${stoppedMs} ms after`);
    console.log(
      `processes: ${workersAtStart} → ${workersAfterLevels} → ${workersAtEnd}; SIGTERM exit ${exitCode}; ` +
        `generator vs the bare server at ${generator.rate}/s: sent ${generator.sentPerSecond}/s, lateness ` +
        `p99 ${generator.latenessMs.p99} ms, answers p99 ${generator.answerMs.p99} ms, errors ${generator.errors}; ` +
        `the cached list's loop against it ${bareCached.idle}/s alone, ${bareCached.beside}/s beside that rate`,
    );
    console.log(`written to ${path.relative(root, file)}`);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await service.stop();
    // kept when something failed: its lines say what the service saw of the failed requests
    if (failed) console.log(`the service's log: ${logFile}`);
    else if (!keptLog) await rm(logFile, { force: true });
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
