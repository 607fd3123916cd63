// A worker's V8 flags are what the memory plan counts: the heap's old generation, the young generation's
// semi-spaces and WebAssembly's tier; a flag given to node by hand wins over each.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { memoryPlanOf, YOUNG_GENERATION_MB } from '../memory.js';
import { earlyInputs } from '../defaults.js';
import {
  MALLOC_ARENAS,
  MMAP_THRESHOLD,
  NO_PRETENURING,
  ownFlags,
  serviceEnv,
  startInputs,
  workerFlags,
} from './flags.js';

describe('workerFlags', () => {
  it('bounds the old generation, sizes the young one as the plan counts it, and keeps WebAssembly lean', () => {
    expect(workerFlags([], 200)).toEqual([
      '--max-old-space-size=200',
      `--max-semi-space-size=${YOUNG_GENERATION_MB / 2}`,
      '--no-allocation-site-pretenuring',
      '--liftoff-only',
    ]);
  });

  it('leaves each choice given by hand as it is', () => {
    const given = [
      '--max-old-space-size=900',
      '--max-semi-space-size=64',
      '--allocation-site-pretenuring',
      '--no-liftoff',
    ];
    expect(workerFlags(given, 200)).toEqual(given);
  });

  it('turns allocation-site pretenuring off with a flag this runtime knows (node refuses one it does not)', () => {
    const run = (flag: string) =>
      execFileSync(process.execPath, [flag, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8', stdio: 'pipe' });
    expect(run(NO_PRETENURING)).toBe('ok');
    expect(() => run('--no-allocation-site-pretenuring-of-another-kind')).toThrow();
  });
});

describe('ownFlags of a single process on the embedded database', () => {
  const config = (dataDir: string, env: Record<string, string> = {}) =>
    loadConfig({ DATA_DIR: dataDir, WORKERS: '1', ...env });
  const heap = (dataDir: string) => `--max-old-space-size=${memoryPlanOf(config(dataDir)).heapMb}`;

  it('leaves the first start, which seeds and then starts again in place, its heap unbounded', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'flags-'));
    expect(ownFlags(config(dataDir), memoryPlanOf(config(dataDir)), [])).toEqual([]);
    // without the sample nothing starts it again: bounded from the start
    const unseeded = config(dataDir, { SEED_SAMPLE: 'false' });
    expect(ownFlags(unseeded, memoryPlanOf(unseeded), [])).toContain(heap(dataDir));
  });

  it('bounds a later start and compiles its WebAssembly once', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'flags-'));
    mkdirSync(path.join(dataDir, 'pglite'));
    writeFileSync(path.join(dataDir, 'pglite', 'PG_VERSION'), '17');
    expect(ownFlags(config(dataDir), memoryPlanOf(config(dataDir)), [])).toEqual([
      '--liftoff-only',
      heap(dataDir),
      `--max-semi-space-size=${YOUNG_GENERATION_MB / 2}`,
      NO_PRETENURING,
    ]);
  });
});

describe('earlyInputs', () => {
  const inputsOf = (env: Record<string, string>) => {
    const c = loadConfig(env);
    return {
      databaseUrl: c.databaseUrl,
      dataDir: c.dataDir,
      seedSample: c.seedSample,
      workers: c.workers,
      memoryBudgetMb: c.memoryBudgetMb,
      ingestWaitMs: c.ingestWaitMs,
      computeThread: c.computeThread,
    };
  };

  it.each<Record<string, string>>([
    {},
    { DATA_DIR: '/srv/savings' },
    { DATA_DIR: 'relative/folder' },
    { DATA_DIR: '', DATABASE_URL: '', WORKERS: '' },
    { PORT: '8080', LOG_LEVEL: 'debug' },
  ])('reads what loadConfig gives when the defaults hold: %o', async (env) => {
    expect(earlyInputs(env)).toEqual(inputsOf(env));
    expect(await startInputs(env)).toEqual(inputsOf(env));
  });

  it.each<Record<string, string>>([
    { WORKERS: '2' },
    { WORKERS: '1' },
    { MEMORY_BUDGET_MB: '900' },
    { SEED_SAMPLE: 'false' },
    { INGEST_WAIT_SECONDS: '5' },
    { COMPUTE_THREAD: 'false' },
    { DATABASE_URL: 'postgresql://x@h/db' },
  ])('leaves the decision to loadConfig when one of them is set: %o', async (env) => {
    expect(earlyInputs(env)).toBeNull();
    expect(await startInputs(env)).toMatchObject(inputsOf(env));
  });

  it('gives a start nothing to act on when the configuration does not parse', async () => {
    expect(await startInputs({ WORKERS: 'many' })).toBeNull();
  });
});

describe('restartWith', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'restart.ts');
  writeFileSync(
    script,
    `import { restartWith } from ${JSON.stringify(path.resolve('src/cluster/flags.ts'))};\n` +
      `if (!process.execArgv.includes('--max-semi-space-size=8')) restartWith(['--max-semi-space-size=8']);\n` +
      `else console.log(JSON.stringify({ pid: process.pid, arenas: process.env.MALLOC_ARENA_MAX ?? null, ` +
      `mmap: process.env.MALLOC_MMAP_THRESHOLD_ ?? null }));\n`,
  );
  const run = (env: NodeJS.ProcessEnv) =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', script], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      }),
    ) as { arenas: string | null; mmap: string | null };

  it.runIf(typeof process.execve === 'function')(
    'starts the process again with the flags, and glibc malloc arenas bounded unless given by hand',
    () => {
      expect(run({ MALLOC_ARENA_MAX: undefined, MALLOC_MMAP_THRESHOLD_: undefined })).toMatchObject({
        arenas: MALLOC_ARENAS,
        mmap: MMAP_THRESHOLD,
      });
      expect(run({ MALLOC_ARENA_MAX: '4', MALLOC_MMAP_THRESHOLD_: '65536' })).toMatchObject({
        arenas: '4',
        mmap: '65536',
      });
    },
  );

  it('serviceEnv keeps the environment and adds the arenas and the mmap threshold', () => {
    expect(serviceEnv({ A: '1' })).toEqual({
      A: '1',
      MALLOC_ARENA_MAX: MALLOC_ARENAS,
      MALLOC_MMAP_THRESHOLD_: MMAP_THRESHOLD,
    });
    expect(serviceEnv({ MALLOC_ARENA_MAX: '8' }).MALLOC_ARENA_MAX).toBe('8');
    expect(serviceEnv({ MALLOC_MMAP_THRESHOLD_: '1048576' }).MALLOC_MMAP_THRESHOLD_).toBe('1048576');
  });
});
