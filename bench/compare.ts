// npm run bench:compare [-- --base 1ea7a2d --duration 5 --rounds 2 --starts 1 --base-node node --head-node node
//   --only name --bare-processes N]
// What one answer costs, this build against an earlier commit, in one run on this machine. The earlier
// commit is checked out in bench/.baseline/<commit> (git worktree), installed with its own lockfile and
// built with its own scripts, once; it runs on the machine's node by default (its package.json pins
// none), as it ran then. Both services get the same sample market (each seeds its own database with the
// same seed) and the same wrk scenarios, alternated base, head, base, head. Per scenario: req/s, p50
// and p99, and the CPU each answer took (user + system time of every process of the service, from
// the kernel, divided by the answers wrk counted); after every scenario the resident memory of all
// processes. A bare node:http server replaying the head's bytes on as many processes as the head serves
// on shows where wrk's own limit is, and what an answer costs with nothing but Node's HTTP (its CPU per
// answer: the floor).
// A process's throughput on the cached scenarios differs by up to a fifth from one start to the next, the
// same build on the same machine (which objects V8's feedback made fast depends on its first requests):
// `--starts N` starts all three N times, every scenario measured in each, and reports their means.
// Writes bench/results/compare-<time>.json.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { descendantsOf, root, rssMbOf, startService, type RunningService } from './service.js';
import { startBare } from './bare-server.js';
import { baseline, machineNode } from './baseline.js';
import { arg } from './support.js';
import { ensureWrk, NEW_AMOUNT_LUA, NEW_SMALL_AMOUNT_LUA, runWrk, type Measured, type WrkScenario } from './wrk.js';

/** A horizon of 1–120 months that moves with every request (37 is prime to 120: each thread goes through all). */
const NEW_HORIZON_LUA = '((n * 37 + id * 61) % 120 + 1)';
const base = arg('base', '1ea7a2d');
const duration = Number(arg('duration', '5'));
const rounds = Number(arg('rounds', '2'));
const starts = Number(arg('starts', '1'));
const scale = Number(arg('scale', '1'));
const days = Number(arg('days', '400'));
/** The runtime of the baseline; the machine's node unless given (npm puts the project's own first on PATH). */
const baseNode = arg('base-node', machineNode());
/** The runtime of this build: the project's own (npm puts it first on PATH). */
const headNode = arg('head-node', 'node');
const only = arg('only', '');

interface Scenario extends WrkScenario {
  name: string;
}

/** User + system CPU seconds of a process and its descendants, from /proc (clock ticks of 1/100 s). */
async function cpuSecondsOf(pid: number): Promise<number> {
  let ticks = 0;
  for (const p of [pid, ...(await descendantsOf(pid))]) {
    const stat = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // after the command: state ppid … utime (12th) stime (13th) cutime cstime
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return ticks / 100;
}

/** The processes that answer requests: a cluster's workers, or the one process that runs alone. */
async function servingProcesses(pid: number): Promise<number> {
  return Math.max(1, (await descendantsOf(pid)).length);
}

interface Run extends Measured {
  cpuMsPerAnswer: number;
}

async function measure(wrk: string, svc: RunningService, s: Scenario, run?: number): Promise<Run> {
  const before = await cpuSecondsOf(svc.pid);
  const m = await runWrk(wrk, svc.base, s, duration, 2, run);
  const cpu = (await cpuSecondsOf(svc.pid)) - before;
  return { ...m, cpuMsPerAnswer: m.requests > 0 ? (cpu * 1000) / m.requests : NaN };
}

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const summary = (runs: Run[]) => ({
  requestsPerSecond: Math.round(avg(runs.map((r) => r.requestsPerSecond))),
  p50Ms: round(avg(runs.map((r) => r.p50Ms))),
  p99Ms: round(avg(runs.map((r) => r.p99Ms))),
  cpuMsPerAnswer: round(avg(runs.map((r) => r.cpuMsPerAnswer)), 3),
  errors: runs.reduce((n, r) => n + r.errors, 0),
});

async function main() {
  const wrk = ensureWrk();
  const baseDir = baseline(base, baseNode);
  const start = async () => ({
    base: await startService({ scale, days, checkout: baseDir, node: baseNode }),
    head: await startService({ scale, days, node: headNode }),
  });
  let services = await start();
  try {
    const rssAtStart = { base: await rssMbOf(services.base.pid), head: await rssMbOf(services.head.pid) };
    const ids = (
      (await (await fetch(`${services.head.base}/api/products?type=all&pageSize=100`)).json()) as {
        items: { id: string }[];
      }
    ).items.map((i) => JSON.stringify(i.id));
    const etagsOf = async () => ({
      base: (await fetch(`${services.base.base}/api/products?type=all`)).headers.get('etag')!,
      head: (await fetch(`${services.head.base}/api/products?type=all`)).headers.get('etag')!,
    });
    let etags = await etagsOf();
    // Amounts the list shows the market for: above 100,000 € no offer is wholly covered by a deposit
    // guarantee, and the default list (fullDgs=true) is empty there; over 1,000–1,099,999.99 € nine in ten
    // of these lists were empty, a fraction of a full one's work.
    const cold: Scenario = {
      name: 'cold list, c=4 (type=all, new amount each)',
      connections: 4,
      method: 'GET',
      path: '/api/products?type=all&amount=1000.00',
      varyLua: `"/api/products?type=all&amount=" .. ${NEW_SMALL_AMOUNT_LUA}`,
    };
    const every: Scenario[] = [
      { name: 'warm list (type=all), c=32', connections: 32, method: 'GET', path: '/api/products?type=all' },
      { name: '304 (If-None-Match), c=32', connections: 32, method: 'GET', path: '/api/products?type=all' },
      cold,
      { ...cold, name: 'cold list, c=16', connections: 16 },
      {
        // What a client moving the horizon (a slider) costs: flexible and notice accounts are calculated per
        // horizon, so a list at a horizon asked little of late builds their calculation again.
        ...cold,
        name: 'cold list at a new horizon, c=4 (type=all, horizon 1–120 and a new amount each)',
        varyLua: `"/api/products?type=all&horizon=" .. ${NEW_HORIZON_LUA} .. "&amount=" .. ${NEW_SMALL_AMOUNT_LUA}`,
      },
      {
        name: 'detail with steps, c=4 (new amount each)',
        connections: 4,
        method: 'GET',
        path: `/api/products/${JSON.parse(ids[0]!)}?amount=1000.00`,
        preludeLua: `local ids = { ${ids.join(', ')} }`,
        varyLua: `"/api/products/" .. ids[(n * 8 + id) % #ids + 1] .. "?amount=" .. ${NEW_AMOUNT_LUA}`,
      },
      {
        name: 'plan (REST, defaults), c=4 (new amount each)',
        connections: 4,
        method: 'GET',
        path: '/api/plan?amount=150000.00',
        varyLua: `"/api/plan?amount=" .. ${NEW_AMOUNT_LUA}`,
      },
      {
        name: 'CSV export of the whole market, c=4 (new amount each)',
        connections: 4,
        method: 'GET',
        path: '/api/products/export?type=all&amount=25000.00',
        varyLua: `"/api/products/export?type=all&amount=" .. ${NEW_SMALL_AMOUNT_LUA}`,
      },
      {
        name: 'GraphQL POST products, c=4',
        connections: 4,
        method: 'POST',
        path: '/graphql',
        body: JSON.stringify({
          query:
            '{ products(type: ALL, amount: "25000") { total items { id name headlineRate institution { id name } ' +
            'dgs { covered uncovered fullyCovered } calc { comparableYield returnPerYear netInterest } } } }',
        }),
      },
    ];
    const scenarios = every.filter((s) => !only || s.name.startsWith(only));
    const withEtag = (s: Scenario, which: 'base' | 'head'): Scenario =>
      s.name.startsWith('304') ? { ...s, headers: { 'if-none-match': etags[which] } } : s;

    // The bare server: the head's bytes for each scenario's first URL, replayed on as many processes as
    // the head serves on (its workers; one when it runs alone, the default on this machine).
    const bareProcesses = Number(arg('bare-processes', '0')) || (await servingProcesses(services.head.pid));
    console.error(`the bare server replays on ${bareProcesses} process${bareProcesses > 1 ? 'es' : ''}`);
    const startBareServer = () =>
      startBare(
        services.head.base,
        scenarios.map((s) => withEtag(s, 'head')),
        bareProcesses,
        path.join(root, 'bench', '.recorded-compare.json'),
      );
    let bare = await startBareServer();

    const runs = scenarios.map(() => ({ base: [] as Run[], head: [] as Run[], bare: [] as Run[] }));
    const rssMb = scenarios.map(() => ({ base: 0, head: 0 }));
    // Each round's number for its new amounts, the same for both builds (runWrk): they answer the same.
    let amounts = 0;
    for (let k = 0; k < starts; k++) {
      if (k > 0) {
        bare.stop();
        await services.base.stop();
        await services.head.stop();
        services = await start();
        etags = await etagsOf();
        bare = await startBareServer();
      }
      for (const [i, s] of scenarios.entries()) {
        for (let r = 0; r < rounds; r++, amounts++) {
          runs[i]!.base.push(await measure(wrk, services.base, withEtag(s, 'base'), amounts));
          runs[i]!.head.push(await measure(wrk, services.head, withEtag(s, 'head'), amounts));
        }
        runs[i]!.bare.push(
          await measure(wrk, { base: bare.base, pid: bare.pid } as RunningService, withEtag(s, 'head')),
        );
        rssMb[i] = { base: await rssMbOf(services.base.pid), head: await rssMbOf(services.head.pid) };
        console.error(`${starts > 1 ? `start ${k + 1} of ${starts}: ` : ''}${s.name}: measured`);
      }
    }
    bare.stop();

    const results = [];
    const fmt = (x: ReturnType<typeof summary>) =>
      `${String(x.requestsPerSecond).padStart(6)} req/s p50 ${x.p50Ms} p99 ${x.p99Ms} ms ` +
      `cpu/answer ${x.cpuMsPerAnswer} ms${x.errors ? ` ${x.errors} errors` : ''}`;
    for (const [i, s] of scenarios.entries()) {
      const row = {
        scenario: s.name,
        base: summary(runs[i]!.base),
        head: summary(runs[i]!.head),
        bare: summary(runs[i]!.bare),
        // Each round's own figure, start after start: a scenario whose answers the caches come to hold (the
        // same horizons again) is faster in the later rounds, and the mean alone hides it.
        rounds: {
          base: runs[i]!.base.map((r) => r.requestsPerSecond),
          head: runs[i]!.head.map((r) => r.requestsPerSecond),
          bare: runs[i]!.bare.map((r) => r.requestsPerSecond),
        },
        rssMb: rssMb[i]!,
      };
      const cpuRatio = round(row.head.cpuMsPerAnswer / row.base.cpuMsPerAnswer);
      results.push({ ...row, cpuRatio });
      console.error(
        `${s.name}\n  base ${fmt(row.base)} | rss ${row.rssMb.base} MB\n  head ${fmt(row.head)} | rss ` +
          `${row.rssMb.head} MB\n  bare ${fmt(row.bare)} | cpu per answer head ÷ base ${cpuRatio}\n  req/s by ` +
          `round: base ${row.rounds.base.join(', ')}; head ${row.rounds.head.join(', ')}` +
          (starts > 1 ? `; bare ${row.rounds.bare.join(', ')}` : ''),
      );
    }
    const out = {
      at: new Date().toISOString(),
      base: { commit: base, node: execFileSync(baseNode, ['--version'], { encoding: 'utf8' }).trim() },
      head: {
        commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
        node: execFileSync(headNode, ['--version'], { encoding: 'utf8' }).trim(),
      },
      scale,
      days,
      duration,
      bareProcesses,
      rounds,
      starts,
      rssAtStart,
      results,
    };
    console.error(
      `resident memory, all processes: at start base ${rssAtStart.base} MB, head ${rssAtStart.head} MB; ` +
        `at the end base ${results.at(-1)?.rssMb.base} MB, head ${results.at(-1)?.rssMb.head} MB`,
    );
    const file = path.join(root, 'bench', 'results', `compare-${out.at.replace(/[:.]/g, '-')}.json`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(out, null, 2));
    console.error(`written to ${path.relative(root, file)}`);
  } finally {
    await services.base.stop();
    await services.head.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
