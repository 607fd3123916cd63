// npm run chaos [-- --kills 20 --scale 10 --seed 1 --max-seconds 300 --tmpfs-mb 256 --no-disk --dir DIR --port N]
// Crash safety of the ingest on the embedded database, measured, on loopback and bounded in time:
//
// 1. Kills. The compiled service runs on its own data folder. An ingest of a large snapshot (the sample
//    market at --scale) is started and killed with SIGKILL at a random moment (seeded: --seed repeats
//    a run), --kills times; each snapshot is retried until an attempt outlives it. After every kill the
//    database is checked in SQL (no row of a snapshot that has no ingest run, no run missing rows, the
//    data version equal to the number of changing runs, one open plan per active offer, plan chains
//    without overlap, events matching plans) and through the API (the service shows the database's
//    data version and offers). Recovery: how long after the kill a new writer gets its turn and a write
//    transaction goes through. Then the remaining snapshots are applied by a clean run, and re-run.
// 2. Disk full (as root, where tmpfs can be mounted): a second service on a small tmpfs, filled up to
//    the last MB. An ingest must fail with a clear message and exit code 4 while the service keeps
//    answering; once space is freed, the same ingest applies (recovery time measured).
//
// Requests to the services run throughout; any answer of 500 or more is a failure. Prints a summary and
// writes bench/results/chaos-<time>.json. Exits 1 when any check fails.
import { execFileSync, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openEmbedded } from '../src/db/embedded.js';
import { takeTurn } from '../src/db/write-turn.js';
import { INGEST_LOCK } from '../src/ingest/apply.js';
import { EXIT } from '../src/ingest/cli.js';
import { generateSnapshots } from '../src/sample/generate.js';
import { Rng } from '../src/sample/random.js';
import { checkInvariants, partialWrites, violations, type Check } from './invariants.js';
import { freePort, root } from './service.js';
import { arg, percentile } from './support.js';

const kills = Number(arg('kills', '20'));
const scale = Number(arg('scale', '10'));
const seed = Number(arg('seed', '1'));
const maxSeconds = Number(arg('max-seconds', '300'));
const tmpfsMb = Number(arg('tmpfs-mb', '256'));
const withDisk = !process.argv.includes('--no-disk');
const portArg = Number(arg('port', '0'));
const dirArg = arg('dir', '');

const started = performance.now();
const elapsed = () => performance.now() - started;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[${(elapsed() / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
const failures: string[] = [];
const fail = (what: string) => {
  failures.push(what);
  log(`FAIL: ${what}`);
};

// --- Processes ------------------------------------------------------------------------------------

interface Child {
  pid: number;
  stderr(): string;
  exited: Promise<number | NodeJS.Signals>;
  kill(): void;
}

/** A node process of ours; with `logFile`, all of its output goes there (a service's), else stderr is kept. */
function run(args: string[], env: NodeJS.ProcessEnv, logFile?: string): Child {
  const out = logFile ? openSync(logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', ...env },
    stdio: ['ignore', out, logFile ? out : 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    pid: child.pid!,
    stderr: () => stderr,
    exited: new Promise((resolve) => child.on('close', (code, signal) => resolve(signal ?? code ?? -1))),
    kill: () => void child.kill('SIGKILL'),
  };
}

const ingest = (dataDir: string, file: string) => run(['dist/ingest/cli.js', file], { DATA_DIR: dataDir });

interface Service {
  base: string;
  dataDir: string;
  client: pg.Client;
  traffic: Traffic;
  stop(): Promise<number | NodeJS.Signals>;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function startService(dataDir: string, port: number, logFile: string): Promise<Service> {
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    SEED_SAMPLE: 'false',
    LOG_LEVEL: 'warn',
    MAX_DATA_AGE_HOURS: '87600',
    RELOAD_POLL_MS: '500',
  };
  const child = run(['dist/main.js'], env, logFile);
  for (let answered = false; !answered;) {
    answered = await fetch(`${base}/api/health`).then(
      () => true,
      () => false,
    );
    if (!answered) {
      if ((await Promise.race([child.exited, sleep(100)])) !== undefined)
        throw new Error(`the service on ${dataDir} ended: see ${logFile}`);
    }
  }
  const db = await openEmbedded(dataDir); // connects to the service's socket
  const client = new pg.Client({ connectionString: db.url });
  client.on('error', (err) => fail(`the connection to the service's database broke: ${err.message}`));
  await client.connect();
  let stopping = false;
  void child.exited.then((code) => {
    if (!stopping) fail(`the service on ${dataDir} ended by itself (${code}): see ${logFile}`);
  });
  const traffic = startTraffic(base);
  return {
    base,
    dataDir,
    client,
    traffic,
    async stop() {
      stopping = true;
      await traffic.stop();
      await client.end();
      process.kill(child.pid, 'SIGTERM');
      return child.exited;
    },
  };
}

// --- Traffic while everything happens -------------------------------------------------------------

interface Traffic {
  statuses: Record<string, number>;
  slowestMs: number;
  stop(): Promise<void>;
}

const TRAFFIC = [
  '/api/products?amount=25000&pageSize=10',
  '/api/changes?limit=5',
  '/api/products?type=deposit&amount=5000&sort=effective',
  '/api/institutions',
];

function startTraffic(base: string): Traffic {
  const traffic: Traffic = { statuses: {}, slowestMs: 0, stop: async () => {} };
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const t = performance.now();
      const status = await fetch(`${base}${TRAFFIC[i % TRAFFIC.length]}`).then(
        async (res) => {
          await res.arrayBuffer();
          return String(res.status);
        },
        (err: Error) => `error: ${err.message}`,
      );
      traffic.statuses[status] = (traffic.statuses[status] ?? 0) + 1;
      traffic.slowestMs = Math.max(traffic.slowestMs, performance.now() - t);
      await sleep(100);
    }
  })();
  traffic.stop = async () => {
    running = false;
    await loop;
  };
  return traffic;
}

const serverErrors = (t: Traffic) => Object.entries(t.statuses).filter(([s]) => !/^[1-4]\d\d$/.test(s));

// --- Checks ---------------------------------------------------------------------------------------

async function dbState(
  client: pg.Client,
): Promise<{ version: number; active: number; runs: number; observed: Set<string> }> {
  const { rows } = await client.query<{ version: number; active: number; runs: number }>(
    `SELECT coalesce((SELECT version FROM "DataVersion" WHERE id = 1), 0) AS version,
            (SELECT count(*)::int FROM "Offer" WHERE status = 'active') AS active,
            (SELECT count(*)::int FROM "IngestRun") AS runs`,
  );
  const observed = await client.query<{ at: Date }>('SELECT "observedAt" AS at FROM "IngestRun"');
  return { ...rows[0]!, observed: new Set(observed.rows.map((r) => r.at.toISOString())) };
}

/** Waits until the API shows the database's data version; the time it took, or null (with a failure). */
async function apiCaughtUp(service: Service, what: string): Promise<number | null> {
  const t = performance.now();
  const db = await dbState(service.client);
  for (;;) {
    const meta = await fetch(`${service.base}/api/meta/last-updated`).then(
      (r) => (r.ok ? (r.json() as Promise<{ dataVersion: number; offers: { active: number } }>) : null),
      () => null,
    );
    if (meta && meta.dataVersion === db.version) {
      if (db.version > 0 && meta.offers.active !== db.active)
        fail(`${what}: the API shows ${meta.offers.active} active offers, the database ${db.active}`);
      return performance.now() - t;
    }
    if (performance.now() - t > 30_000) {
      fail(
        `${what}: the API still shows data version ${meta?.dataVersion ?? '(no answer)'} 30 s later, the ` +
          `database ${db.version}`,
      );
      return null;
    }
    await sleep(50);
  }
}

function checked(checks: Check[], what: string): { partialWrites: number; violations: number } {
  for (const c of checks.filter((c) => c.violations > 0))
    fail(`${what}: ${c.name}: ${c.violations} (${c.examples.join('; ')})`);
  return { partialWrites: partialWrites(checks), violations: violations(checks) };
}

/** How long after a kill a new writer gets its turn, and a write transaction goes through. */
async function recovery(service: Service, killedAt: number): Promise<{ turnMs: number; writeMs: number }> {
  const turn = await takeTurn(
    { databaseUrl: undefined, dataDir: service.dataDir },
    { activity: 'chaos check', waitMs: 60_000 },
  );
  const turnMs = performance.now() - killedAt;
  try {
    await service.client.query('BEGIN');
    await service.client.query(`SELECT pg_advisory_xact_lock(${INGEST_LOCK})`);
    await service.client.query('UPDATE "DataVersion" SET version = version WHERE id = 1');
    await service.client.query('COMMIT');
  } finally {
    await turn.release();
  }
  return { turnMs, writeMs: performance.now() - killedAt };
}

// --- The run --------------------------------------------------------------------------------------

interface KillRecord {
  n: number;
  snapshot: string;
  afterMs: number;
  /** starting: before it connected to the database; connected: in its work on the database. */
  phase: 'starting' | 'connected';
  committed: boolean;
  turnMs: number;
  writeMs: number;
  apiMs: number | null;
  partialWrites: number;
  violations: number;
}

interface SnapshotFile {
  file: string;
  observedAt: string;
  offers: number;
}

async function writeSnapshots(dir: string, days: number): Promise<SnapshotFile[]> {
  const now = new Date();
  const end = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10); // whole days, all in the past
  const files: SnapshotFile[] = [];
  await mkdir(dir, { recursive: true });
  for (const snapshot of generateSnapshots({ seed, days, end, scale, notAfter: now.toISOString() })) {
    const file = path.join(dir, `${snapshot.observedAt.slice(0, 10)}.json`);
    await writeFile(file, JSON.stringify(snapshot));
    files.push({ file, observedAt: snapshot.observedAt, offers: snapshot.offers.length });
  }
  return files;
}

async function killPhase(service: Service, files: SnapshotFile[], deadline: number) {
  const rng = new Rng(seed).fork('kills');
  const records: KillRecord[] = [];
  const completed: { snapshot: string; ms: number }[] = [];
  let target = 0;
  // How long an ingest of the next snapshot takes: a guess until one has run to the end.
  let expectedMs = 1_200 * scale;
  let lastVersion = 0;
  while (records.length < kills && target < files.length && elapsed() < deadline) {
    const { file, observedAt } = files[target]!;
    const child = ingest(service.dataDir, file);
    const t = performance.now();
    const afterMs = Math.round(rng.next() * expectedMs * 1.05);
    const outcome = await Promise.race([child.exited, sleep(afterMs).then(() => 'kill' as const)]);
    if (outcome !== 'kill') {
      if (outcome !== EXIT.done) fail(`ingest of ${path.basename(file)} ended ${outcome}: ${child.stderr()}`);
      completed.push({ snapshot: path.basename(file), ms: Math.round(performance.now() - t) });
      expectedMs = performance.now() - t;
      target++;
      log(
        `ingest of ${path.basename(file)} finished in ${(expectedMs / 1000).toFixed(1)} s, before its kill at ` +
          `${(afterMs / 1000).toFixed(1)} s`,
      );
      continue;
    }
    child.kill();
    const killedAt = performance.now();
    await child.exited;
    const phase = /is open in process/.test(child.stderr()) ? 'connected' : 'starting';
    const { turnMs, writeMs } = await recovery(service, killedAt);
    const state = await dbState(service.client);
    const committed = state.observed.has(observedAt);
    if (committed) target++;
    if (state.version < lastVersion)
      fail(`kill ${records.length + 1}: the data version went back from ${lastVersion} to ${state.version}`);
    lastVersion = state.version;
    const found = checked(await checkInvariants(service.client), `kill ${records.length + 1}`);
    const apiMs = await apiCaughtUp(service, `kill ${records.length + 1}`);
    const record: KillRecord = {
      n: records.length + 1,
      snapshot: path.basename(file),
      afterMs,
      phase,
      committed,
      turnMs: Math.round(turnMs),
      writeMs: Math.round(writeMs),
      apiMs: apiMs && Math.round(apiMs),
      ...found,
    };
    records.push(record);
    log(
      `kill ${record.n}: ${record.snapshot} at ${(afterMs / 1000).toFixed(2)} s (${phase}, ` +
        `${committed ? 'after its commit' : 'not committed'}); ` +
        `turn free after ${record.turnMs} ms, a write after ${record.writeMs} ms; partial writes ` +
        `${record.partialWrites}, violations ${record.violations}`,
    );
  }
  return { records, completed, appliedBefore: target };
}

/**
 * The disk-full run: a small base market, then the full load of the large one (every offer new: the
 * largest write there is) on a disk with a few hundred KB left.
 */
async function diskPhase(large: SnapshotFile, port: number, workDir: string) {
  if (process.getuid?.() !== 0) return { skipped: 'not root: a tmpfs cannot be mounted' };
  const mnt = path.join(workDir, 'tmpfs');
  await mkdir(mnt, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${tmpfsMb}m`, 'tmpfs', mnt], { stdio: 'pipe' });
  } catch (err) {
    return {
      skipped:
        'mount -t tmpfs failed: ' + ((err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message),
    };
  }
  const dataDir = path.join(mnt, 'data');
  let service: Service | undefined;
  try {
    service = await startService(dataDir, port, path.join(workDir, 'service-disk.log'));
    const dayBefore = new Date(Date.parse(large.observedAt) - 86_400_000).toISOString().slice(0, 10);
    const [small] = [...generateSnapshots({ seed, days: 1, end: dayBefore, scale: 1 })];
    const file0 = path.join(workDir, 'base-scale-1.json');
    await writeFile(file0, JSON.stringify(small));
    const file1 = large.file;
    const base = ingest(dataDir, file0);
    if ((await base.exited) !== EXIT.done) throw new Error(`the base ingest on the tmpfs failed: ${base.stderr()}`);
    await apiCaughtUp(service, 'disk: base snapshot');
    const versionBefore = (await dbState(service.client)).version;

    // Nearly full: all but the last 256 KB taken by a filler file.
    const filler = path.join(mnt, 'filler');
    const fs = await statfs(mnt);
    const leaveBytes = 256 * 1024;
    execFileSync('fallocate', ['-l', String(Math.max(0, fs.bavail * fs.bsize - leaveBytes)), filler]);
    const freeKb = Math.round(((await statfs(mnt)).bavail * (await statfs(mnt)).bsize) / 1024);
    const statusesBefore = { ...service.traffic.statuses };
    const t = performance.now();
    const full = ingest(dataDir, file1);
    const code = await full.exited;
    const failedAfterMs = Math.round(performance.now() - t);
    const message = full
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('error:'))
      .join(' ');
    if (code !== EXIT.failed) fail(`disk full: the ingest ended ${code}, not ${EXIT.failed}: ${full.stderr()}`);
    if (!/no space left on the database's disk/.test(message)) fail(`disk full: no clear message: ${full.stderr()}`);
    if (/\n\s+at /.test(full.stderr())) fail(`disk full: a stack trace: ${full.stderr()}`);
    // The service keeps answering from what it has, and its database still answers reads.
    await sleep(2_000);
    const health = await fetch(`${service.base}/api/health`).then(
      (r) => r.json() as Promise<{ checks: { database: string } }>,
    );
    if (health.checks.database !== 'ok') fail(`disk full: health says the database is ${health.checks.database}`);
    const duringFull = Object.fromEntries(
      Object.entries(service.traffic.statuses).map(([s, n]) => [s, n - (statusesBefore[s] ?? 0)]),
    );
    const afterFull = await dbState(service.client);
    if (afterFull.version !== versionBefore)
      fail(`disk full: the data version moved from ${versionBefore} to ${afterFull.version}`);
    const found = checked(await checkInvariants(service.client), 'disk full');

    await rm(filler);
    const freed = performance.now();
    const again = ingest(dataDir, file1);
    const againCode = await again.exited;
    const appliedAfterMs = Math.round(performance.now() - freed);
    if (againCode !== EXIT.done) fail(`disk freed: the ingest ended ${againCode}: ${again.stderr()}`);
    const apiMs = await apiCaughtUp(service, 'disk freed');
    const recovered = checked(await checkInvariants(service.client), 'disk freed');
    return {
      tmpfsMb,
      freeKbWhenFull: freeKb,
      exitCode: code,
      message,
      failedAfterMs,
      answersWhileFull: duringFull,
      healthWhileFull: health,
      partialWrites: found.partialWrites + recovered.partialWrites,
      violations: found.violations + recovered.violations,
      recoveryMs: {
        ingestApplied: appliedAfterMs,
        apiShowsIt: apiMs === null ? null : Math.round(appliedAfterMs + apiMs),
      },
      serverErrors: serverErrors(service.traffic),
    };
  } finally {
    const code = await service?.stop();
    if (code !== undefined && code !== 0) fail(`the disk-full service exited ${code}`);
    execFileSync('umount', [mnt], { stdio: 'pipe' });
  }
}

async function pickPort(): Promise<number> {
  return portArg ? portArg : freePort();
}

async function main(): Promise<number> {
  if (dirArg) await mkdir(dirArg, { recursive: true });
  const workDir = dirArg || (await mkdtemp(path.join(os.tmpdir(), 'savings-chaos-')));
  const deadline = maxSeconds * 1000 - (withDisk ? 75_000 : 30_000); // what the final runs and the disk phase need
  // Attempts that outlive their kill, or are killed after their commit, use a snapshot up: about half of
  // them did in a run of 20 kills (a third was not enough for the kills asked for).
  const days = 3 + Math.ceil(kills * 0.75);
  log(`chaos: ${kills} kills, scale ${scale}, seed ${seed}, ${days} snapshots, at most ${maxSeconds} s, in ${workDir}`);
  const files = await writeSnapshots(path.join(workDir, 'snapshots'), days);
  log(`wrote ${files.length} snapshots of ${scale}× the sample market`);

  const dataDir = path.join(workDir, 'data');
  await rm(dataDir, { recursive: true, force: true });
  const port = await pickPort();
  if (!(await portFree(port))) throw new Error(`port ${port} is taken`);
  const service = await startService(dataDir, port, path.join(workDir, 'service.log'));
  log(`service on ${service.base}, data in ${dataDir}`);

  let killResult: Awaited<ReturnType<typeof killPhase>>;
  let final: {
    ms: number;
    code: number | string;
    rerunCode: number | string;
    partialWrites: number;
    violations: number;
  };
  try {
    killResult = await killPhase(service, files, deadline);
    // Whatever is left applies in one clean run; a second run of everything changes nothing.
    const t = performance.now();
    const rest = run(['dist/ingest/cli.js', path.join(workDir, 'snapshots')], { DATA_DIR: dataDir });
    const code = await rest.exited;
    const ms = Math.round(performance.now() - t);
    if (code !== EXIT.done) fail(`the clean run ended ${code}: ${rest.stderr()}`);
    const before = await dbState(service.client);
    const rerun = run(['dist/ingest/cli.js', path.join(workDir, 'snapshots')], { DATA_DIR: dataDir });
    const rerunCode = await rerun.exited;
    const after = await dbState(service.client);
    if (rerunCode !== EXIT.done || after.version !== before.version)
      fail(`the re-run ended ${rerunCode}, data version ${before.version} → ${after.version}`);
    if (after.runs !== files.length) fail(`${after.runs} ingest runs for ${files.length} snapshots`);
    const found = checked(await checkInvariants(service.client), 'after the clean run');
    await apiCaughtUp(service, 'after the clean run');
    final = { ms, code, rerunCode, ...found };
  } finally {
    const code = await service.stop();
    if (code !== 0) fail(`the service exited ${code}`);
  }
  const errors = serverErrors(service.traffic);
  if (errors.length > 0) fail(`answers other than 1xx–4xx: ${JSON.stringify(errors)}`);

  const disk = withDisk ? await diskPhase(files[0]!, await pickPort(), workDir) : { skipped: '--no-disk' };
  if ('serverErrors' in disk && (disk.serverErrors?.length ?? 0) > 0)
    fail(`disk phase: answers other than 1xx–4xx: ${JSON.stringify(disk.serverErrors)}`);

  const { records } = killResult;
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const writeMs = sorted(records.map((r) => r.writeMs));
  const turnMs = sorted(records.map((r) => r.turnMs));
  const summary = {
    at: new Date().toISOString(),
    seed,
    scale,
    offersPerSnapshot: files.map((f) => f.offers),
    killsTried: records.length,
    killsBeforeCommit: records.filter((r) => !r.committed).length,
    killsAfterCommit: records.filter((r) => r.committed).length,
    killsBeforeConnecting: records.filter((r) => r.phase === 'starting').length,
    partialWritesFound: records.reduce((n, r) => n + r.partialWrites, 0) + final.partialWrites,
    invariantViolations: records.reduce((n, r) => n + r.violations, 0) + final.violations,
    recoveryMs: {
      turnFree: records.length ? { p50: percentile(turnMs, 50), max: turnMs.at(-1) } : null,
      writeGoesThrough: records.length ? { p50: percentile(writeMs, 50), max: writeMs.at(-1) } : null,
    },
    ingestsThatOutlivedTheirKill: killResult.completed,
    cleanRun: final,
    answers: service.traffic.statuses,
    slowestAnswerMs: Math.round(service.traffic.slowestMs),
    disk,
    failures,
    kills: records,
    seconds: Math.round(elapsed() / 1000),
  };
  const file = path.join(root, 'bench', 'results', `chaos-s${scale}-${summary.at.replace(/[:.]/g, '-')}.json`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(summary, null, 2));

  const row = (k: string, v: unknown) => `  ${k.padEnd(38)} ${typeof v === 'string' ? v : JSON.stringify(v)}`;
  console.log(
    [
      `chaos: seed ${seed}, scale ${scale}, ${summary.seconds} s`,
      row(
        'kills tried',
        `${summary.killsTried} (${summary.killsBeforeCommit} before the commit, ${summary.killsAfterCommit} ` +
          `after it; ${summary.killsBeforeConnecting} before connecting)`,
      ),
      ...(summary.killsTried < kills
        ? [
            row(
              '',
              `fewer than the ${kills} asked for: ` +
                `${killResult.appliedBefore >= files.length ? 'every snapshot was applied' : 'the time was up'}`,
            ),
          ]
        : []),
      row('partial writes found', summary.partialWritesFound),
      row('invariant violations', summary.invariantViolations),
      row(
        'recovery: turn free after a kill',
        summary.recoveryMs.turnFree
          ? `p50 ${summary.recoveryMs.turnFree.p50} ms, max ${summary.recoveryMs.turnFree.max} ms`
          : '-',
      ),
      row(
        'recovery: a write goes through',
        summary.recoveryMs.writeGoesThrough
          ? `p50 ${summary.recoveryMs.writeGoesThrough.p50} ms, max ${summary.recoveryMs.writeGoesThrough.max} ms`
          : '-',
      ),
      row(
        'ingests that finished before the kill',
        killResult.completed.map((c) => `${c.snapshot} ${(c.ms / 1000).toFixed(1)} s`).join(', ') || 'none',
      ),
      row(
        'clean run of the rest, then a re-run',
        `exit ${final.code} in ${(final.ms / 1000).toFixed(1)} s, re-run exit ${final.rerunCode}`,
      ),
      row('answers during the kills', service.traffic.statuses),
      ...('skipped' in disk
        ? [row('disk full', `skipped: ${disk.skipped}`)]
        : [
            row('disk full: tmpfs, free when full', `${disk.tmpfsMb} MB, ${disk.freeKbWhenFull} KB free`),
            row(
              'disk full: ingest',
              `exit ${disk.exitCode} after ${(disk.failedAfterMs / 1000).toFixed(1)} s: ${disk.message}`,
            ),
            row('disk full: answers meanwhile', disk.answersWhileFull),
            row(
              'disk freed: recovery',
              `ingest applied ${(disk.recoveryMs.ingestApplied / 1000).toFixed(1)} s after, API showed it after ` +
                (disk.recoveryMs.apiShowsIt === null ? '-' : `${(disk.recoveryMs.apiShowsIt / 1000).toFixed(1)} s`),
            ),
          ]),
      row('result', failures.length === 0 ? 'all checks passed' : `${failures.length} FAILED`),
      `  ${path.relative(root, file)}`,
    ].join('\n'),
  );
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`chaos: ${err.stack ?? err.message}`);
    process.exit(1);
  },
);
