// The service as a cluster (WORKERS=2) on the embedded database, as `npm start` runs it on a two-core
// machine: the primary owns the database, the workers serve. What must hold across workers: one rate
// limit per client however its connections are spread, a request id and a log line per request from
// whichever worker answered, the figures of all workers in /metrics and /api/metrics (cache bytes
// included), an ingest served by every worker within seconds with the same new ETag, and SIGTERM
// draining every worker and exiting 0. (Change streams across workers: stream-processes.test.ts;
// single-process mode: lifecycle.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Snapshot } from '../src/ingest/snapshot.js';
import { generateSnapshots } from '../src/sample/generate.js';

const DAYS = 3;
const LIMIT = 20;
let child: ChildProcess;
let port: number;
let dataDir: string;
let output = '';
/** The log alone (standard error has the seeding's progress). */
let stdout = '';
let exited: Promise<number | null>;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

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

interface Figures {
  process: { rssMb: number; processes: number };
  data: { version: number };
  caches: Record<string, { bytes: number; maxBytes: number }>;
  cluster: { workers: number; answered: number; each: { pid: number; dataVersion: number }[] };
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
    for (const s of generateSnapshots({ seed: 42, days: DAYS, end: new Date().toISOString().slice(0, 10), scale: 1 }))
      last = s;
    const snapshot = structuredClone(last!);
    snapshot.observedAt = new Date(Date.parse(snapshot.observedAt) + 60_000).toISOString();
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
