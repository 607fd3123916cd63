// A worker's V8 flags are what the memory plan counts: the heap's old generation, the young generation's
// semi-spaces and WebAssembly's tier; a flag given to node by hand wins over each.
import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_MB } from '../memory.js';
import { workerFlags } from './flags.js';

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
