// A snapshot too large for the memory budget cannot take the service down (it once did: a valid 60,698-offer
// snapshot was ingested, every worker ran out of heap loading it, was replaced at once and died again, for
// good). The service as `npm start` runs it (two workers, the embedded database), fed by `npm run ingest`:
// - a market 20x the sample fits the default budget: ingested and served, health answered throughout, no
//   worker restarted;
// - the same snapshot against a smaller budget is refused before anything is written (exit 5, saying the
//   budget that would hold it);
// - a database already holding more than the budget (ingested under a larger one) does not crash-loop: the
//   workers say why and are restarted with growing delays while the primary answers health 503 with the
//   reason and every other request 503 problem+json with Retry-After; the repair (a smaller complete
//   snapshot) goes through and the service comes back by itself;
// - a running service fed a version too large keeps serving the one before and says so in its health.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSnapshots } from '../src/sample/generate.js';
import { upToNow } from './support/snapshots.js';
import { runCli } from './support/cli-process.js';
import { freePort } from './support/port.js';

const SMALL_BUDGET = '640'; // holds 9,537 offers with two workers (src/memory.ts); the 20x market has ~14,000

let dataDir: string;
let files: string;
let port: number;
let service: { child: ChildProcess; log(): string } | undefined;

function get(pathAndQuery: string, timeoutMs = 10_000) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; ms: number }>(
    (resolve, reject) => {
      const started = performance.now();
      const req = http.get({ host: '127.0.0.1', port, path: pathAndQuery, agent: false, timeout: timeoutMs }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, ms: performance.now() - started }),
        );
      });
      req.on('timeout', () => req.destroy(new Error(`no answer to ${pathAndQuery} within ${timeoutMs} ms`)));
      req.on('error', reject);
    },
  );
}

const env = (budget?: string) => ({
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  SAMPLE_DAYS: '2',
  LOG_LEVEL: 'info',
  WORKERS: '2',
  RELOAD_POLL_MS: '300',
  ...(budget ? { MEMORY_BUDGET_MB: budget } : {}),
});

async function start(budget?: string, until = /"msg":"listening on http/) {
  const { DATABASE_URL: _url, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...inherited, ...env(budget) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  service = { child, log: () => log };
  const deadline = Date.now() + 110_000;
  while (!until.test(log)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the service did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stop() {
  const child = service!.child;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** One complete snapshot of the sample market at `scale`, dated now (each later than the one before). */
async function snapshot(name: string, scale: number): Promise<string> {
  const [one] = [...generateSnapshots({ seed: 7, days: 1, ...upToNow(), scale })];
  const file = path.join(files, `${name}.json`);
  await writeFile(file, JSON.stringify({ ...one!, observedAt: new Date().toISOString() }));
  return file;
}

async function ingest(file: string, budget?: string) {
  const run = runCli('src/ingest/cli.ts', [file], env(budget));
  return { code: await run.exited, stderr: run.stderr() };
}

/** Polls health every 100 ms while `during` runs: every answer's status and time. */
async function watchingHealth<T>(during: () => Promise<T>) {
  const seen: { status: number; ms: number; body: string }[] = [];
  let done = false;
  const poll = (async () => {
    while (!done) {
      const r = await get('/api/health').catch((err: Error) => ({ status: 0, ms: NaN, body: err.message }));
      seen.push(r);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const result = await during();
  done = true;
  await poll;
  return { result, seen };
}

const restarts = () => (service!.log().match(/a worker stopped unexpectedly/g) ?? []).length;
/** Active offers in the catalogue the answering worker serves (no calculation: cheap at any size). */
const total = async () =>
  (JSON.parse((await get('/api/meta/last-updated')).body) as { offers: { active: number } }).offers.active;

beforeAll(async () => {
  port = await freePort();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'capacity-'));
  files = await mkdtemp(path.join(os.tmpdir(), 'capacity-files-'));
  await start();
}, 120_000);

afterAll(() => {
  if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
});

describe('a catalogue larger than the memory budget', () => {
  let large: string;

  it('is refused before anything is written, saying which budget would hold it', { timeout: 120_000 }, async () => {
    large = await snapshot('x20', 20);
    const before = await total();
    const { code, stderr } = await ingest(large, SMALL_BUDGET);
    expect(code).toBe(5);
    expect(stderr).toMatch(
      /would leave 1\d,\d{3} active offers \(now \d+\); MEMORY_BUDGET_MB=640 with 2 workers holds at most 9,537/,
    );
    expect(stderr).toMatch(/need MEMORY_BUDGET_MB=\d+/);
    expect(await total()).toBe(before);
  });

  it(
    '20x the sample fits the default budget: ingested, served by every worker, health up throughout',
    { timeout: 180_000 },
    async () => {
      const { result, seen } = await watchingHealth(async () => {
        const run = await ingest(large);
        // every worker loads it (each new connection goes to the next worker)
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline && (await Promise.all([total(), total()])).some((n) => n < 13_000))
          await new Promise((resolve) => setTimeout(resolve, 300));
        return run;
      });
      expect(result.code, result.stderr).toBe(0);
      expect(await total()).toBeGreaterThan(13_000);
      expect(
        seen.filter((r) => r.status !== 200),
        JSON.stringify(seen.slice(-3)),
      ).toEqual([]);
      console.info(
        `health during the 20x ingest and load: ${seen.length} answers, ` +
          `slowest ${Math.max(...seen.map((r) => r.ms)).toFixed(0)} ms`,
      );
      expect(restarts()).toBe(0);
    },
  );

  it(
    'does not crash-loop a service started with less: health says why, 503s say when, the repair brings it back',
    { timeout: 240_000 },
    async () => {
      await stop();
      await start(SMALL_BUDGET, /"restartInMs":[1-9]\d*/);
      // the primary answers on the port while no worker can (once node:cluster has let go of it), at
      // once, with the reason
      const answering = Date.now() + 5_000;
      while (
        await get('/api/health').then(
          () => false,
          () => Date.now() < answering,
        )
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      const health = await get('/api/health');
      expect(health.status).toBe(503);
      expect(health.ms).toBeLessThan(250);
      const said = JSON.parse(health.body) as { status: string; checks: Record<string, string>; detail: string };
      expect(said).toMatchObject({ status: 'degraded', checks: { capacity: 'exceeded' } });
      expect(said.detail).toMatch(/has 1\d,\d{3} active offers; .* holds at most 9,537/);
      const list = await get('/api/products?amount=1000');
      expect(list.status).toBe(503);
      expect(list.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(list.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // growing delays, not a loop
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      const delays = [...service!.log().matchAll(/"restartInMs":(\d+)/g)].map((m) => Number(m[1]));
      expect(delays.length).toBeLessThan(8);
      for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);

      // the repair: a complete snapshot of the ordinary market, through the same budget
      const repair = await ingest(await snapshot('x1', 1), SMALL_BUDGET);
      expect(repair.code, repair.stderr).toBe(0);
      const deadline = Date.now() + 90_000;
      let back = await get('/api/health');
      while (back.status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        back = await get('/api/health');
      }
      expect(back.status, back.body).toBe(200);
      expect(await total()).toBeLessThan(1_000);
    },
  );

  it(
    'a running service keeps serving the version before one too large for it, and says so',
    { timeout: 180_000 },
    async () => {
      const before = await total();
      // ingested under a budget that holds it: this service's does not
      const { code, stderr } = await ingest(await snapshot('x20-again', 20), '896');
      expect(code, stderr).toBe(0);
      const deadline = Date.now() + 30_000;
      let health = await get('/api/health');
      while (health.status === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        health = await get('/api/health');
      }
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body)).toMatchObject({
        status: 'degraded',
        checks: { capacity: 'exceeded', database: 'ok' },
      });
      expect(await total()).toBe(before);
      expect(service!.log()).toMatch(
        /a new data version is too large for this process; serving the data already loaded/,
      );
      await stop();
    },
  );
});
