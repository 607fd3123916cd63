// Load from wrk (C, an event loop per thread): on two cores it drives a bare node:http server several
// times faster than autocannon in one Node thread can, so what a run measures is the server, not the
// generator. Installed from Debian's packages when missing (as root). Each scenario is a Lua script:
// its method, headers and body, and for "new amount each" a URL per request that no thread repeats.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface WrkScenario {
  connections: number;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A Lua expression of `n` (this thread's request count) and `id` (the thread) giving each request's path. */
  varyLua?: string;
  /** Lua run once per thread before the first request (tables the expression reads). */
  preludeLua?: string;
}

export interface Measured {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Connection errors, timeouts and answers ≥ 400. */
  errors: number;
}

export function ensureWrk(): string {
  const found = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  let wrk = found();
  if (wrk) return wrk;
  if (process.getuid?.() !== 0)
    throw new Error('wrk is not installed: apt-get install -y wrk (as root), then run the benchmark again');
  console.error('installing wrk (apt-get install -y wrk)');
  execFileSync(
    'sh',
    [
      '-c',
      'apt-get install -y -qq wrk >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive ' +
        'apt-get install -y -qq wrk >/dev/null)',
    ],
    { stdio: 'inherit' },
  );
  wrk = found();
  if (!wrk) throw new Error('could not install wrk');
  return wrk;
}

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal for our ASCII

function script(s: WrkScenario, run: number): string {
  const headers = Object.entries({ ...s.headers, ...(s.body ? { 'content-type': 'application/json' } : {}) })
    .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
    .join(', ');
  return (
    `
local threads = 0
function setup(thread) thread:set("id", threads); threads = threads + 1 end
local n = 0
local run = ${run}
local headers = { ${headers} }
local body = ${s.body ? lua(s.body) : 'nil'}
${s.preludeLua ?? ''}
function request()
  n = n + 1
  return wrk.format(${lua(s.method)}, ${s.varyLua ?? lua(s.path)}, headers, body)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RESULT {"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout, ` +
    `latency:percentile(50), latency:percentile(99)))
end
`
  );
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'wrk-'));
let scripts = 0;

/**
 * `run` numbers the run's new amounts (NEW_AMOUNT_LUA): by default the calls' order, so that in a benchmark
 * that numbers none of its runs no run asks an amount an earlier one asked. Two services compared side by
 * side are each given the same number in a round (bench/compare.ts): over a large market the amounts a run
 * draws decide its speed (four times over in one measurement at ×20), and the two must answer the same
 * ones. There, only the bare server's runs go by the default; it answers every amount alike.
 */
export function runWrk(
  wrk: string,
  base: string,
  s: WrkScenario,
  durationSeconds: number,
  threads = 2,
  run = scripts,
): Promise<Measured> {
  const file = path.join(dir, `s${scripts++}.lua`);
  writeFileSync(file, script(s, run));
  return new Promise((resolve, reject) => {
    const child = spawn(
      wrk,
      [
        '-t',
        String(Math.min(threads, s.connections)),
        '-c',
        String(s.connections),
        '-d',
        `${durationSeconds}s`,
        '--timeout',
        '10s',
        '-s',
        file,
        `${base}${s.path}`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const line = /^RESULT (.*)$/m.exec(out);
      if (code !== 0 || !line) return reject(new Error(`wrk exited ${code}:\n${out}`));
      const r = JSON.parse(line[1]!) as {
        requests: number;
        durationUs: number;
        errors: number;
        p50Us: number;
        p99Us: number;
      };
      resolve({
        requests: r.requests,
        requestsPerSecond: Math.round(r.requests / (r.durationUs / 1e6)),
        p50Ms: r.p50Us / 1000,
        p99Ms: r.p99Us / 1000,
        errors: r.errors,
      });
    });
  });
}

/**
 * Lua: a new amount for every request, 1,000.00 plus one of `spanCents` cent amounts, never the same twice across
 * threads nor across the runs of one benchmark (`run` numbers them; a thread makes fewer than 100,000
 * requests a run): a bijection of the request's number onto the amounts in cents, 7919 being prime to the
 * spans used here.
 */
const newAmountLua = (spanCents: number) =>
  `string.format("%.2f", 1000 + (((run * 100000 + n) * 8 + id) * 7919 % ${spanCents}) / 100)`;

/** 1,000.00 to 1,099,999.99. */
export const NEW_AMOUNT_LUA = newAmountLua(109_900_000);

/**
 * 1,000.00 to 99,999.99: amounts nearly every offer takes, so that an export at each lists the whole market
 * (most maxima are 100,000 or above; at 420,000 an export of the sample has a few rows).
 */
export const NEW_SMALL_AMOUNT_LUA = newAmountLua(9_900_000);
