// npm run bench [-- --scale N --days D --duration S --connections C --workers W --database-url URL]
// npm run bench -- --against REF [--scale N --days D --duration S]: this build and commit REF side by side
//   instead, in one run (bench/compare.ts, which `npm run bench:compare -- --base REF` runs as well).
// The service against the limit of this machine, in one run. Load comes from wrk (bench/wrk.ts),
// which outruns the service, so the figures are the server's. Beside the service (A), a bare node:http
// server (B, bench/bare.ts) with as many processes as the service has workers answers every request
// with the very bytes and headers the service gave for that URL. Each scenario runs A B A B (loopback
// only, bounded in time); per scenario: req/s, p50 and p99 of both, and the ratio. Then the cold list
// once more against the same build with the other count of processes (one when the service runs more,
// two when it runs one), for what the extra processes bring; then the past beside the present: the list
// asOf a past version at new amounts (scenario g, beside c) and the first asOf answer of versions not
// loaded yet. Writes bench/results/http-<time>.json so runs can be compared.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { availableCores, defaultWorkers } from '../src/defaults.js';
import { root, rssMbOf, startService, type RunningService } from './service.js';
import { startBare } from './bare-server.js';
import { arg } from './support.js';
import { ensureWrk, NEW_AMOUNT_LUA, NEW_SMALL_AMOUNT_LUA, runWrk, type Measured, type WrkScenario } from './wrk.js';

const scale = Number(arg('scale', '1'));
const days = Number(arg('days', scale === 1 ? '400' : '30'));
const duration = Number(arg('duration', '5'));
const connections = Number(arg('connections', '32'));
const latencyConnections = Number(arg('latency-connections', '4'));
/** Serving processes: the service's own default unless given; the cold list is then run with `other` too. */
const workers = Number(arg('workers', String(defaultWorkers(availableCores(), !arg('database-url', '')))));
const other = workers > 1 ? 1 : 2;
/** PostgreSQL instead of the embedded database (the production set-up); seeded once. */
const databaseUrl = arg('database-url', '');
/** An earlier commit to run beside this build (bench/compare.ts) instead of the bare server alone. */
const against = arg('against', '');

interface Scenario extends WrkScenario {
  name: string;
}

const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
const summarise = (ms: Measured[]) => ({
  requestsPerSecond: Math.round(mean(ms.map((m) => m.requestsPerSecond))),
  p50Ms: mean(ms.map((m) => m.p50Ms)),
  p99Ms: mean(ms.map((m) => m.p99Ms)),
  errors: ms.reduce((n, m) => n + m.errors, 0),
});

/** `--against REF`: bench/compare.ts with `--base REF` and the other options as given; its exit code. */
function compareAgainst(ref: string): number {
  const rest = process.argv.slice(2);
  const at = rest.indexOf('--against');
  rest.splice(at, 2);
  const script = path.join(root, 'bench', 'compare.ts');
  return (
    spawnSync(process.execPath, ['--import', 'tsx', script, '--base', ref, ...rest], { stdio: 'inherit' }).status ?? 1
  );
}

async function main() {
  if (against) process.exit(compareAgainst(against));
  const wrk = ensureWrk();
  const database = databaseUrl ? { databaseUrl } : {};
  let running: RunningService = await startService({ scale, days, ...database, env: { WORKERS: String(workers) } });
  const { base, startToFirstAnswerMs } = running;
  try {
    const rssStart = await rssMbOf(running.pid);
    const detailIds = (
      (await (await fetch(`${base}/api/products?type=all&pageSize=500`)).json()) as { items: { id: string }[] }
    ).items.map((i) => i.id);
    const listEtag = (await fetch(`${base}/api/products?type=all`)).headers.get('etag')!;
    const graphql = JSON.stringify({
      query:
        '{ products(type: ALL, amount: "25000") { total items { id name headlineRate institution { id name ' +
        'country } dgs { covered uncovered fullyCovered sharedWith } calc { comparableYield returnPerYear ' +
        'netInterest } } } }',
    });
    const ids = `local ids = { ${detailIds.map((id) => JSON.stringify(id)).join(', ')} }`;
    // Amounts the list shows the market for (above 100,000 € the default list, fullDgs=true, is empty).
    const cold: Scenario = {
      name: 'c cold list (type=all, new amount each)',
      connections: latencyConnections,
      method: 'GET',
      path: '/api/products?type=all&amount=1000.00',
      varyLua: `"/api/products?type=all&amount=" .. ${NEW_SMALL_AMOUNT_LUA}`,
    };
    const coldThroughput: Scenario = { ...cold, name: "c' cold list, throughput", connections: 8 };
    // The past beside the present: the ledger's versions, one of them (a quarter back) for the asOf list.
    const ledger = (
      (await (await fetch(`${base}/api/ledger?pageSize=500`)).json()) as { items: { observedAt: string }[] }
    ).items;
    const past = encodeURIComponent(ledger[Math.floor((ledger.length * 3) / 4)]!.observedAt);
    const asOfCold: Scenario = {
      name: 'g asOf list (a past version, new amount each)',
      connections: latencyConnections,
      method: 'GET',
      path: `/api/products?type=all&asOf=${past}&amount=1000.00`,
      varyLua: `"/api/products?type=all&asOf=${past}&amount=" .. ${NEW_SMALL_AMOUNT_LUA}`,
    };
    const scenarios: Scenario[] = [
      { name: 'a warm list (type=all)', connections, method: 'GET', path: '/api/products?type=all' },
      {
        name: 'b 304 (If-None-Match)',
        connections,
        method: 'GET',
        path: '/api/products?type=all',
        headers: { 'if-none-match': listEtag },
      },
      cold,
      coldThroughput,
      {
        name: 'd detail with steps (new amount each)',
        connections: latencyConnections,
        method: 'GET',
        path: `/api/products/${detailIds[0]}?amount=1000.00`,
        preludeLua: ids,
        varyLua: `"/api/products/" .. ids[(n * 8 + id) % #ids + 1] .. "?amount=" .. ${NEW_AMOUNT_LUA}`,
      },
      {
        name: 'e GraphQL POST products',
        connections: latencyConnections,
        method: 'POST',
        path: '/graphql',
        body: graphql,
      },
      {
        name: 'f CSV export (type=all)',
        connections: latencyConnections,
        method: 'GET',
        path: '/api/products/export?type=all',
      },
      asOfCold,
    ];

    // What the service answers, byte for byte, for each scenario's URL: the bare server replays it.
    const bare = await startBare(base, scenarios, workers, path.join(root, 'bench', '.recorded.json'));
    const bareBase = bare.base;

    const results = [];
    for (const s of scenarios) {
      const a: Measured[] = [];
      const b: Measured[] = [];
      for (let round = 0; round < 2; round++) {
        a.push(await runWrk(wrk, base, s, duration));
        b.push(await runWrk(wrk, bareBase, s, duration));
      }
      const service = summarise(a);
      const limit = summarise(b);
      const row = {
        scenario: s.name,
        connections: s.connections,
        service,
        bare: limit,
        ratio: Math.round((service.requestsPerSecond / limit.requestsPerSecond) * 100) / 100,
      };
      results.push(row);
      console.error(
        `${s.name.padEnd(40)} c=${String(s.connections).padEnd(3)} service ` +
          `${String(service.requestsPerSecond).padStart(6)} req/s p50 ${service.p50Ms} p99 ${service.p99Ms} ` +
          `ms | ` +
          `bare ${String(limit.requestsPerSecond).padStart(6)} req/s p50 ${limit.p50Ms} p99 ${limit.p99Ms} ms ` +
          `| ratio ${row.ratio}${service.errors ? ` | ${service.errors} errors` : ''}`,
      );
    }
    bare.stop();

    // The first asOf answer of versions not loaded yet (their catalogues read back from the ledger), one
    // at a time, from the oldest third of the history: none of them was asked before.
    const firstAsOf: number[] = [];
    for (let i = 0; i < 20 && i < ledger.length / 3; i++) {
      const at = encodeURIComponent(ledger[i * Math.max(1, Math.floor(ledger.length / 60))]!.observedAt);
      const started = performance.now();
      const res = await fetch(`${base}/api/products?type=all&asOf=${at}&amount=25000`);
      await res.arrayBuffer();
      if (res.ok) firstAsOf.push(performance.now() - started);
    }
    firstAsOf.sort((a, b) => a - b);
    const firstAsOfMs = {
      versions: firstAsOf.length,
      p50: Math.round(firstAsOf[Math.floor(firstAsOf.length / 2)] ?? NaN),
      max: Math.round(firstAsOf.at(-1) ?? NaN),
    };
    console.error(
      `${'h first asOf answer of a version not loaded'.padEnd(40)} ${firstAsOfMs.versions} versions: p50 ` +
        `${firstAsOfMs.p50} ms, max ${firstAsOfMs.max} ms | g ÷ c (p50): ` +
        `${Math.round((results.at(-1)!.service.p50Ms / results[2]!.service.p50Ms) * 100) / 100}`,
    );
    const rssEnd = await rssMbOf(running.pid);
    const metrics = (await (await fetch(`${base}/api/metrics`)).json()) as { caches: unknown };
    await running.stop();

    // The same build with the other count of processes (one, or two), for the cold list's throughput.
    running = await startService({ scale, days, ...database, env: { WORKERS: String(other) } });
    const single = summarise([
      await runWrk(wrk, running.base, coldThroughput, duration),
      await runWrk(wrk, running.base, coldThroughput, duration),
    ]);
    await running.stop();
    const many = results.find((r) => r.scenario === coldThroughput.name)!.service;
    const scaling = {
      workers,
      withWorkers: many,
      other,
      withOther: single,
      ratio: Math.round((many.requestsPerSecond / single.requestsPerSecond) * 100) / 100,
    };
    console.error(
      `${`c' cold list, WORKERS=${other}`.padEnd(40)} c=8   service ${String(single.requestsPerSecond).padStart(6)} ` +
        `req/s p50 ${single.p50Ms} p99 ${single.p99Ms} ms | WORKERS=${workers} ÷ WORKERS=${other}: ${scaling.ratio}`,
    );

    const summary = {
      at: new Date().toISOString(),
      scale,
      days,
      database: running.database,
      duration,
      connections,
      workers,
      generator: 'wrk',
      startToFirstAnswerMs,
      rssMb: { start: rssStart, end: rssEnd },
      caches: metrics.caches,
      results,
      firstAsOfMs,
      scaling,
    };
    await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
    const file = path.join(
      root,
      'bench',
      'results',
      `http-s${scale}-${summary.database}-${summary.at.replace(/[:.]/g, '-')}.json`,
    );
    await writeFile(file, JSON.stringify(summary, null, 2));
    console.error(
      `start to first answer ${startToFirstAnswerMs} ms; resident memory (all processes) ${rssStart} MB at ` +
        `start, ${rssEnd} MB at the end; written to ${path.relative(root, file)}`,
    );
  } finally {
    await running.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
