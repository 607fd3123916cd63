// The floors of docs/architecture.md, checked against the imports of src/: no import runs up a floor, every
// file of the service sits on one, and no import cycle exists (type imports count: a type shared by two
// modules lives below both). And no file of the service is longer than a reader can take in.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const SRC = path.join(root, 'src');

/** The floors, top first: each a list of patterns (`dir/`, `file.ts`, `*\/name.ts` for that name in any folder). */
function floors(): string[][] {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const block = /## Floors[\s\S]*?```\n([\s\S]*?)```/.exec(doc)![1]!;
  return block
    .trim()
    .split('\n')
    .map((line) => line.split(/\s{2,}/)[0]!.split(/\s+/));
}

/** The service's files: everything in src/ but tests, generated code and the browser's page. */
function serviceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    const rel = path.relative(SRC, full);
    if (entry.isDirectory())
      return ['web', path.join('db', 'generated'), '__tests__'].some((x) => rel === x || rel.endsWith(`/${x}`))
        ? []
        : serviceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

function floorOf(file: string, all: string[][]): number {
  // The most specific pattern wins: a file named by itself, then `*/name.ts`, then its folder.
  const matches = (pattern: string) =>
    pattern.endsWith('/')
      ? file.startsWith(pattern) && 1
      : pattern.startsWith('*/')
        ? file.endsWith(pattern.slice(1)) && 2
        : file === pattern && 3;
  let best = { floor: -1, rank: 0 };
  all.forEach((patterns, floor) => {
    for (const pattern of patterns) {
      const rank = Number(matches(pattern));
      if (rank > best.rank) best = { floor, rank };
    }
  });
  return best.floor;
}

/** Each file's imports of other files of src/ (static, re-exports and dynamic), as paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers
    .map((s) => path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), s)).replace(/\.js$/, '.ts'))
    .filter((target) => !target.startsWith('..') && !target.startsWith('db/generated') && target.endsWith('.ts'));
}

describe('the floors of docs/architecture.md', () => {
  const all = floors();
  const files = serviceFiles();

  it('name every file of the service', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => floorOf(f, all) < 0)).toEqual([]);
  });

  it('hold: no import runs up a floor', () => {
    const up: string[] = [];
    for (const file of files)
      for (const target of importsOf(file))
        if (floorOf(target, all) < floorOf(file, all))
          up.push(`${file} (${all[floorOf(file, all)]![0]}) imports ${target} (${all[floorOf(target, all)]![0]})`);
    expect(up).toEqual([]);
  });

  it('have no import cycle', () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' > '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('hold files a reader can take in: none of the service over 500 lines (the sample market aside)', () => {
    const SAMPLE_DATA = ['sample/generate.ts', 'sample/market.ts'];
    const long = files
      .filter((f) => !SAMPLE_DATA.includes(f))
      .map((f) => [f, readFileSync(path.join(SRC, f), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 500);
    expect(long).toEqual([]);
  });

  it('catch what they are for (a checked example of each rule)', () => {
    expect(floorOf('http/handler.ts', all)).toBeLessThan(floorOf('request/errors.ts', all));
    expect(floorOf('ingest/cli.ts', all)).toBe(0);
    expect(floorOf('ingest/apply.ts', all)).toBeGreaterThan(floorOf('catalog/load.ts', all));
    expect(importsOf('http/handler.ts')).toContain('http/admission.ts');
  });
});
