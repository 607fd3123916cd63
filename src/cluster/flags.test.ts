// A worker's V8 flags are what the memory plan counts: the heap's old generation, the young generation's
// semi-spaces and WebAssembly's tier; a flag given to node by hand wins over each.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { memoryPlanOf, YOUNG_GENERATION_MB } from '../memory.js';
import { ownFlags, workerFlags } from './flags.js';

describe('workerFlags', () => {
  it('bounds the old generation, sizes the young one as the plan counts it, and keeps WebAssembly lean', () => {
    expect(workerFlags([], 200)).toEqual([
      '--max-old-space-size=200',
      `--max-semi-space-size=${YOUNG_GENERATION_MB / 2}`,
      '--liftoff-only',
    ]);
  });

  it('leaves each choice given by hand as it is', () => {
    const given = ['--max-old-space-size=900', '--max-semi-space-size=64', '--no-liftoff'];
    expect(workerFlags(given, 200)).toEqual(given);
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
    ]);
  });
});
