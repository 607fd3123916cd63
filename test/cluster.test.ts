// The service as a cluster (WORKERS=2) on the embedded database, as `npm start` runs it on a two-core
// machine: the primary owns the database, the workers serve. What must hold across workers: one rate
// limit per client however its connections are spread, a request id and a log line per request from
// whichever worker answered, the figures of all workers in /metrics and /api/metrics (cache bytes
// included), each put together by its meaning (a version the lowest, sizes summed, a process's own
// figures labelled by worker), an ingest served by every worker within seconds with the same new ETag, and SIGTERM
// draining every worker and exiting 0. (Change streams across workers: stream-processes.test.ts;
// single-process mode: lifecycle.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { upToNow } from './support/snapshots.js';
import { freePort } from './support/port.js';

const DAYS = 3;
const LIMIT = 20;
let child: ChildProcess;
let port: number;
let dataDir: string;
let output = '';
/** The log alone (standard error has the seeding's progress). */
let stdout = '';
let exited: Promise<number | null>;

/** A GET on a connection of its own: node:cluster hands each new connection to the next worker. */
function get(
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathAndQuery, agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

interface ProcessFigures {
  pid: number;
  worker?: number;
  rssMb: number;
  heapUsedMb: number;
}
interface Figures {
  process: { rssMb: number; processes: number };
  data: { version: number };
  caches: Record<string, { bytes: number; maxBytes: number }>;
  streams: { position: number };
  cluster: {
    workers: number;
    answered: number;
    primary: ProcessFigures;
    each: (ProcessFigures & {
      dataVersion: number;
      streamPosition: number;
      caches: Record<string, Record<string, number>>;
    })[];
  };
}
const figures = async () => JSON.parse((await get('/api/metrics')).body) as Figures;

beforeAll(async () => {
  port = await freePort();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'cluster-'));
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      SAMPLE_DAYS: String(DAYS),
      LOG_LEVEL: 'info',
      WORKERS: '2',
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      // Each test is its own client (X-Forwarded-For, believed from this host), with a quota of its own.
      TRUSTED_PROXIES: 'loopback',
      RELOAD_POLL_MS: '500',
      SHUTDOWN_GRACE_MS: '5000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
    stdout += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 110_000;
  while (!output.includes(`"msg":"listening on http://127.0.0.1:${port}"`)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the service did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

describe('the service with two workers', () => {
  it('reports every worker and the primary, with each cache in bytes, in /api/metrics and /metrics', async () => {
    const f = await figures();
    expect(f.cluster).toMatchObject({ workers: 2, answered: 2 });
    expect(new Set(f.cluster.each.map((w) => w.pid)).size).toBe(2);
    expect(f.process.processes).toBe(3);
    for (const name of ['bodies', 'calculator', 'history', 'requests', 'documents', 'compiledQueries']) {
      expect(f.caches[name]!.maxBytes, name).toBeGreaterThan(0);
      expect(f.caches[name]!.bytes, name).toBeLessThanOrEqual(f.caches[name]!.maxBytes);
    }
    const text = (await get('/metrics')).body;
    expect(text).toMatch(/^savings_cache_size\{cache="bodies",what="bytes"\} \d+/m);
    expect(text).toMatch(/^savings_cache_size\{cache="calculator",what="maxBytes"\} \d+/m);
    // summed over the workers: each has its own share of the budget
    const bodiesMax = Number(/^savings_cache_size\{cache="bodies",what="maxBytes"\} (\d+)/m.exec(text)![1]);
    expect(bodiesMax).toBe(f.caches.bodies!.maxBytes);
  });

  it("/metrics, parsed, agrees with /api/meta/last-updated, /api/health and each worker's own figures", async () => {
    const client = { 'x-forwarded-for': '203.0.113.4' };
    // Each URL asked of both workers first, so that their caches hold still while they are compared.
    for (let i = 0; i < 4; i++) {
      await get('/api/meta/last-updated', client);
      await figures();
      await get('/metrics');
    }
    const meta = JSON.parse((await get('/api/meta/last-updated', client)).body) as { dataVersion: number };
    const ageBefore = (JSON.parse((await get('/api/health')).body) as { dataAgeSeconds: number }).dataAgeSeconds;
    const f = await figures();
    const text = (await get('/metrics')).body;
    const families = parsePrometheusTextFormat(text);
    const ageAfter = (JSON.parse((await get('/api/health')).body) as { dataAgeSeconds: number }).dataAgeSeconds;
    const family = (name: string): MetricFamily => {
      const found = families.find((m) => m.name === name);
      expect(found, name).toBeDefined();
      return found!;
    };
    const single = (name: string) => {
      const { metrics } = family(name);
      expect(metrics, name).toHaveLength(1);
      return Number(metrics[0]!.value);
    };
    expect(f.cluster.each).toHaveLength(2);

    // A version is the same everywhere, or the lowest (the most behind): never a sum.
    expect(single('savings_data_version')).toBe(meta.dataVersion);
    expect(single('savings_data_version')).toBe(Math.min(...f.cluster.each.map((w) => w.dataVersion)));
    expect(f.data.version).toBe(meta.dataVersion);
    expect(f.streams.position).toBe(Math.min(...f.cluster.each.map((w) => w.streamPosition)));
    // The age is the oldest data served.
    const age = single('savings_data_age_seconds');
    expect(age).toBeGreaterThanOrEqual(ageBefore);
    expect(age).toBeLessThanOrEqual(ageAfter);

    // A cache's size is the sum of the workers' caches.
    const sizes = family('savings_cache_size').metrics;
    let compared = 0;
    for (const cache of Object.keys(f.caches)) {
      for (const what of ['entries', 'bytes', 'maxBytes']) {
        const each = f.cluster.each.map((w) => w.caches[cache]?.[what]);
        if (each.some((v) => typeof v !== 'number')) continue;
        const series = sizes.filter((m) => m.labels?.cache === cache && m.labels.what === what);
        expect(series, `${cache} ${what}`).toHaveLength(1);
        expect(Number(series[0]!.value), `${cache} ${what}`).toBe(each.reduce((a, b) => a! + b!, 0));
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(18);

    // A process's own figures are its own, labelled by worker (and the primary's), never added up.
    const byWorker = (name: string) => {
      const { metrics } = family(name);
      for (const m of metrics) expect(m.labels?.worker, `${name} has a worker label`).toMatch(/^(\d+|primary)$/);
      return new Map(metrics.map((m) => [m.labels!.worker!, Number(m.value)]));
    };
    const rss = byWorker('process_resident_memory_bytes');
    const heap = byWorker('nodejs_heap_size_used_bytes');
    const processes = [...f.cluster.each, { ...f.cluster.primary, worker: 'primary' }];
    expect(new Set(rss.keys())).toEqual(new Set(processes.map((p) => String(p.worker))));
    for (const p of processes) {
      const mb = (bytes: number | undefined) => (bytes ?? 0) / 1024 / 1024;
      // the same process read moments apart: close, and nowhere near the sum of two
      expect(mb(rss.get(String(p.worker))), `rss of ${p.worker}`).toBeGreaterThan(p.rssMb * 0.75);
      expect(mb(rss.get(String(p.worker))), `rss of ${p.worker}`).toBeLessThan(p.rssMb * 1.3);
      expect(mb(heap.get(String(p.worker))), `heap of ${p.worker}`).toBeGreaterThan(p.heapUsedMb * 0.5);
      expect(mb(heap.get(String(p.worker))), `heap of ${p.worker}`).toBeLessThan(p.heapUsedMb * 2);
    }
    // Read from the text: the parser drops the labels of histograms (nodejs_gc_duration_seconds).
    const processLines = text.split('\n').filter((line) => /^(process|nodejs)_/.test(line));
    expect(processLines.length).toBeGreaterThan(30);
    for (const line of processLines) expect(line).toMatch(/[{,]worker="(\d+|primary)"[,}]/);
    // Counts since start are sums: every request of every worker counted once.
    expect(family('http_requests_total').metrics.some((m) => m.labels?.worker !== undefined)).toBe(false);
  });

  it('gives each request an id and a log line, from both workers', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => get('/api/products', { 'x-forwarded-for': '203.0.113.1' })),
    );
    const ids = answers.map((a) => a.headers['x-request-id']);
    expect(new Set(ids).size).toBe(6);
    const deadline = Date.now() + 3_000; // the log is written in batches, at least every second
    while (!ids.every((id) => output.includes(`"requestId":"${id}"`)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const workers = new Set(
      ids.map(
        (id) =>
          /"worker":(\d+)[^\n]*"requestId":"([^"]+)"/.exec(
            output.split('\n').find((l) => l.includes(`"requestId":"${id}"`)) ?? '',
          )?.[1],
      ),
    );
    expect(workers).toEqual(new Set(['1', '2']));
    // whole lines, never two workers' lines run together
    for (const line of stdout.split('\n').filter(Boolean))
      expect(() => JSON.parse(line), line.slice(0, 200)).not.toThrow();
  });

  it('limits a client to one quota however its connections are spread over the workers (issue 15)', async () => {
    const statuses: number[] = [];
    const client = { 'x-forwarded-for': '203.0.113.2' };
    for (let i = 0; i < LIMIT + 10; i++) statuses.push((await get('/api/institutions', client)).status);
    // Per-worker buckets would let up to twice the quota through.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
    const refused = await get('/api/institutions', client);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
  });

  it('serves an ingest from every worker within seconds, with one new ETag', async () => {
    const before = await figures();
    const etags = async () =>
      new Set(
        await Promise.all(
          [0, 1, 2, 3].map(
            async () => (await get('/api/products?type=all', { 'x-forwarded-for': '203.0.113.3' })).headers.etag,
          ),
        ),
      );
    const old = await etags();
    expect(old.size).toBe(1); // the same answer from both workers, the same ETag
    let last: Snapshot | undefined;
    for (const s of generateSnapshots({ seed: 42, days: DAYS, ...upToNow(), scale: 1 })) last = s;
    const snapshot = structuredClone(last!);
    snapshot.observedAt = new Date().toISOString(); // later than the seeded last day, never ahead of the clock
    const offer = snapshot.offers.find((o) => o.type === 'flexible')!;
    const rate = (Number(offer.plan.headlineRate) + 0.37).toFixed(2);
    offer.plan = {
      ...offer.plan,
      headlineRate: rate,
      tierMode: 'whole',
      tiers: [{ from: '0.00', to: null, rate }],
      promotion: null,
    };
    const file = path.join(dataDir, 'next.json');
    await writeFile(file, JSON.stringify(snapshot));
    const ingest = spawn(process.execPath, ['--import', 'tsx', 'src/ingest/cli.ts', file], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: 'ignore',
    });
    expect(await new Promise((resolve) => ingest.on('exit', resolve))).toBe(0);
    const ingested = Date.now();
    for (;;) {
      const f = await figures();
      if (f.cluster.each.length === 2 && f.cluster.each.every((w) => w.dataVersion > before.data.version)) break;
      expect(Date.now() - ingested, 'every worker on the new data').toBeLessThan(4_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = await figures();
    expect(after.data.version).toBe(before.data.version + 1);
    const now = await etags();
    expect(now.size).toBe(1);
    expect(now).not.toEqual(old);
  }, 60_000);

  it('on SIGTERM drains every worker, closes the database and exits 0', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/"worker":1,[^\n]*"exitCode":0,"msg":"stopped"/);
    expect(output).toMatch(/"worker":2,[^\n]*"exitCode":0,"msg":"stopped"/);
    expect(output).toMatch(/"exitCode":0,"msg":"stopped"\}\s*$/);
    expect(existsSync(path.join(dataDir, 'embedded.lock.json'))).toBe(false);
  }, 30_000);
});
