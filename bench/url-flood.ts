// npm run attack:urls [-- --count 10000 --connections 32 --days 20 --budget-mb 896 --dir DIR --port N]
// Distinct long URLs against the service as `npm start` runs it: two workers on the embedded database
// (seeded into a fresh folder the first time), on loopback, bounded in count and time. Once, about
// 3,500–6,000 GETs of /graphql?x=N&j=<8 KB> ran both workers out of heap within 0.2 s of each other.
//
// Phases, each of --count requests (distinct documents a tenth of it: each one is compiled), every URL
// distinct and 8 KB long: GraphQL without a query ("Must provide query string"), GraphQL with a query
// and junk parameters, distinct GraphQL documents, the REST list with junk parameters (ignored, contract
// §7), then URLs over the 8 KB limit (414). Meanwhile /api/health is asked every 100 ms on a new
// connection from a thread of its own (each goes to the next worker) and the resident memory of every
// process is read from /proc. The generator itself runs at nice 10, the service and the probe at normal
// priority: on 2 cores it would otherwise take the CPU the service is measured on.
//
// Fails (exit 1) on: a worker that stopped or was replaced, an answer of 500 or more (but the bound of
// work in progress's 503 with Retry-After) or a broken connection, a refusal that is neither
// problem+json with a detail nor a GraphQL error with a message, /api/health slower than 250 ms or not
// 200, resident memory above MEMORY_BUDGET_MB, a cache beyond its bytes, or an unclean SIGTERM. Writes
// bench/results/url-flood-<time>.json.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { defaultBudgetMb } from '../src/defaults.js';
import { MAX_URL_LENGTH } from '../src/http/admission.js';
import { probeInThread } from './probe.js';
import { descendantsOf, freePort, processRssMb, root, rssMbOf } from './service.js';
import { arg, percentile } from './support.js';

const count = Number(arg('count', '10000'));
const connections = Number(arg('connections', '32'));
const days = Number(arg('days', '20'));
const budgetMb = Number(arg('budget-mb', String(defaultBudgetMb(2, true))));
const maxSeconds = Number(arg('max-seconds', '600'));
const HEALTH_MS = 250;
const GENERATOR_NICE = 10;

const failures: string[] = [];
const fail = (what: string) => {
  if (failures.length < 50) failures.push(what);
  console.error(`FAIL: ${what}`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A URL of exactly MAX_URL_LENGTH characters (or `length`): the part that varies, then padding. */
const padded = (head: string, length = MAX_URL_LENGTH) => head + 'x'.repeat(Math.max(0, length - head.length));

interface Answer {
  status: number;
  type: string;
  retryAfter: string | undefined;
  body: string;
  ms: number;
}

function get(port: number, pathAndQuery: string, agent: http.Agent | false, timeoutMs = 30_000): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathAndQuery, agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          type: String(res.headers['content-type'] ?? ''),
          retryAfter: res.headers['retry-after'],
          body: Buffer.concat(chunks).toString(),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/**
 * Why an answer is not acceptable, or null: anything below 400 goes; a refusal must say why. A 503 is
 * acceptable only as the bound of work in progress gives it: problem+json with a detail and Retry-After.
 */
function problemWith(answer: Answer): string | null {
  const overloaded = answer.status === 503 && answer.retryAfter !== undefined;
  if (answer.status >= 500 && !overloaded) return `status ${answer.status}`;
  let json: { detail?: unknown; errors?: { message?: unknown }[] } | undefined;
  try {
    json = JSON.parse(answer.body) as typeof json;
  } catch {
    json = undefined;
  }
  if (answer.status < 400) {
    // A GraphQL error given with 200 (the legacy media type) still says what was wrong.
    return json?.errors && typeof json.errors[0]?.message !== 'string' ? 'a GraphQL error without a message' : null;
  }
  if (answer.type.startsWith('application/problem+json'))
    return typeof json?.detail === 'string' && json.detail ? null : 'problem+json without a detail';
  if (typeof json?.errors?.[0]?.message === 'string') return null;
  return `${answer.status} as ${answer.type || 'no type'}, neither problem+json nor a GraphQL error`;
}

async function main() {
  const dir = arg('dir', '') || (await mkdtemp(path.join(os.tmpdir(), 'url-flood-')));
  const port = Number(arg('port', '0')) || (await freePort());
  const logFile = path.join(dir, 'service.log');
  await mkdir(dir, { recursive: true });
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dir,
      DATABASE_URL: '',
      WORKERS: '2',
      MEMORY_BUDGET_MB: String(budgetMb),
      SAMPLE_DAYS: String(days),
      MAX_DATA_AGE_HOURS: '8760',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', openSync(logFile, 'a'), 'inherit'],
  });
  let exitCode: number | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve((exitCode = code ?? (signal ? -1 : null)))),
  );
  const deadline = Date.now() + maxSeconds * 1000;
  try {
    for (;;) {
      const up = await get(port, '/api/health', false, 2000).catch(() => null);
      if (up?.status === 200) break;
      if (exitCode !== null) throw new Error(`the service exited with ${exitCode} before answering`);
      if (Date.now() > deadline) throw new Error('the service did not answer in time');
      await sleep(250);
    }
    const workers = await descendantsOf(child.pid!);
    /** Each process's resident MB: the primary (with the embedded database), then the workers. */
    const each = async () =>
      Object.fromEntries(
        await Promise.all(
          [child.pid!, ...workers].map(async (pid) => [pid, await processRssMb(pid).catch(() => NaN)] as const),
        ),
      );
    const rssBefore = await rssMbOf(child.pid!);
    const eachBefore = await each();
    const eachPeak: Record<number, number> = { ...eachBefore };
    console.error(`service on :${port} (pid ${child.pid}, workers ${workers.join(', ')}), ${rssBefore} MB resident`);

    // Monitors: health on a new connection every 100 ms, from a thread of its own (probe.ts); resident
    // memory every 200 ms.
    let running = true;
    const healthProbe = probeInThread(port, '/api/health', 100);
    await healthProbe.online;
    // From here this thread, the generator, runs at a lower CPU priority than the service and the probe:
    // on a 2-core machine it would otherwise take a core the service needs, and an attacker's CPU is
    // not the service's. It still sends as fast as it can.
    os.setPriority(0, GENERATOR_NICE);
    const rss: number[] = [];
    const monitors = [
      (async () => {
        while (running) {
          const now = await each();
          for (const [pid, mb] of Object.entries(now)) eachPeak[Number(pid)] = Math.max(eachPeak[Number(pid)] ?? 0, mb);
          rss.push(Object.values(now).reduce((a, b) => a + b, 0));
          await sleep(200);
        }
      })(),
    ];

    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    const phases: Record<
      string,
      { requests: number; seconds: number; statuses: Record<number, number>; healthMaxMs?: number }
    > = {};
    const spans: { name: string; from: number; to: number }[] = [];
    async function phase(name: string, n: number, urlOf: (i: number) => string) {
      const statuses: Record<number, number> = {};
      const started = performance.now();
      const from = Date.now();
      let next = 0;
      const one = async () => {
        while (next < n && Date.now() < deadline && exitCode === null) {
          const url = urlOf(next++);
          const answer = await get(port, url, agent).catch((err: Error) => err);
          if (answer instanceof Error) {
            fail(`${name}: ${answer.message}`);
            continue;
          }
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          const problem = problemWith(answer);
          if (problem) fail(`${name} ${url.slice(0, 80)}…: ${problem}`);
        }
      };
      await Promise.all(Array.from({ length: connections }, one));
      phases[name] = { requests: n, seconds: Math.round(performance.now() - started) / 1000, statuses };
      spans.push({ name, from, to: Date.now() });
      console.error(`${name}: ${JSON.stringify(phases[name])}`);
    }
    await phase('graphql-no-query', count, (i) => padded(`/graphql?x=${i}&j=`));
    await phase('graphql-junk-parameters', count, (i) => padded(`/graphql?query=%7B__typename%7D&x=${i}&j=`));
    await phase('graphql-documents', Math.ceil(count / 10), (i) => padded(`/graphql?query=%7B__typename%7D%23${i}`));
    await phase('rest-junk-parameters', count, (i) => padded(`/api/products?pageSize=5&x=${i}&j=`));
    await phase('url-too-long', Math.ceil(count / 50), (i) => padded(`/graphql?x=${i}&j=`, MAX_URL_LENGTH + 100));
    agent.destroy();
    await sleep(2000); // the last answers collected
    running = false;
    await Promise.all(monitors);
    const health: number[] = [];
    for (const answer of await healthProbe.stop()) {
      if (answer.error) fail(`/api/health: ${answer.error}`);
      else {
        health.push(answer.ms);
        if (answer.status !== 200) fail(`/api/health answered ${answer.status}`);
        const during = spans.find((s) => answer.at < s.to && answer.at + answer.ms > s.from);
        if (during) phases[during.name]!.healthMaxMs = Math.max(phases[during.name]!.healthMaxMs ?? 0, answer.ms);
        if (answer.ms > HEALTH_MS)
          fail(`/api/health took ${answer.ms.toFixed(0)} ms${during ? ` during ${during.name}` : ''}`);
      }
    }

    const metrics = JSON.parse((await get(port, '/api/metrics', false)).body) as {
      caches: Record<string, { bytes?: number; maxBytes?: number }>;
    };
    for (const [name, c] of Object.entries(metrics.caches))
      if (c.bytes !== undefined && c.maxBytes !== undefined && c.bytes > c.maxBytes)
        fail(`cache ${name}: ${c.bytes} bytes of ${c.maxBytes}`);
    const workersAfter = await descendantsOf(child.pid!);
    if (workersAfter.join() !== workers.join()) fail(`workers ${workers.join()} are now ${workersAfter.join()}`);
    const log = readFileSync(logFile, 'utf8');
    const stopped = log.split('\n').filter((line) => line.includes('a worker stopped unexpectedly')).length;
    if (stopped > 0) fail(`${stopped} workers stopped unexpectedly (see ${logFile})`);
    const rssAfter = await rssMbOf(child.pid!);
    const eachAfter = await each();
    const peak = Math.round(Math.max(...rss.filter(Number.isFinite)) * 10) / 10;
    if (peak > budgetMb) fail(`resident memory reached ${peak} MB, over the budget of ${budgetMb} MB`);

    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) fail(`exit code ${code} on SIGTERM`);

    const sorted = [...health].sort((a, b) => a - b);
    const summary = {
      at: new Date().toISOString(),
      count,
      connections,
      budgetMb,
      phases,
      health: {
        asked: health.length,
        p50Ms: Math.round(percentile(sorted, 50)),
        p99Ms: Math.round(percentile(sorted, 99)),
        maxMs: Math.round(sorted.at(-1) ?? NaN),
      },
      rssMb: {
        before: rssBefore,
        peak,
        after: rssAfter,
        each: { before: eachBefore, peak: eachPeak, after: eachAfter },
      },
      workers: { before: workers, after: workersAfter, stoppedUnexpectedly: stopped },
      caches: metrics.caches,
      shutdownExitCode: code,
      failures,
    };
    await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
    const file = path.join(root, 'bench', 'results', `url-flood-${summary.at.replace(/[:.]/g, '-')}.json`);
    await writeFile(file, JSON.stringify(summary, null, 2));
    console.log(
      [
        `url flood: ${count} distinct 8 KB URLs per phase, ${connections} connections, two workers, ` +
          `budget ${budgetMb} MB`,
        ...Object.entries(phases).map(
          ([name, p]) =>
            `  ${name}: ${p.requests} in ${p.seconds} s, statuses ${JSON.stringify(p.statuses)}, ` +
            `health max ${p.healthMaxMs?.toFixed(0) ?? '-'} ms`,
        ),
        `  /api/health: ${summary.health.asked} asked, p50 ${summary.health.p50Ms} ms, p99 ` +
          `${summary.health.p99Ms} ms, max ${summary.health.maxMs} ms (limit ${HEALTH_MS})`,
        `  resident memory: ${rssBefore} MB before, peak ${peak} MB, ${rssAfter} MB after`,
        ...[child.pid!, ...workers].map(
          (pid, i) =>
            `    ${i === 0 ? 'primary' : `worker ${i}`} (pid ${pid}): ${eachBefore[pid]?.toFixed(0)} MB before, ` +
            `peak ${eachPeak[pid]?.toFixed(0)} MB, ${eachAfter[pid]?.toFixed(0)} MB after`,
        ),
        `  workers: ${workers.join(', ')} before, ${workersAfter.join(', ')} after; ${stopped} stopped unexpectedly`,
        `  SIGTERM: exit ${code}`,
        `  written to ${path.relative(root, file)}`,
      ].join('\n'),
    );
    if (failures.length > 0) {
      console.error(`url flood FAILED: ${failures.length} failures, first: ${failures.slice(0, 5).join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    if (exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}

main().catch((err: Error) => {
  console.error(err);
  process.exit(1);
});
