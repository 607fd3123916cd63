// The runtime and the dependencies the service runs with: one Node version everywhere (npm scripts find the
// pinned one first on PATH), and nothing the running service imports left out of a production install
// (the image keeps only `dependencies`).
import { builtinModules } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(await readFile('package.json', 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('runtime', () => {
  it('runs the tests on the Node version package.json pins', () => {
    const pinned = pkg.devDependencies.node!;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(process.version).toBe(`v${pinned}`);
    const [major] = pinned.split('.');
    expect(pkg.engines.node).toMatch(new RegExp(`^>=${major}\\.`));
  });
});

/** Every module the entry reaches through relative imports, and the packages they import at run time. */
async function packagesReached(entries: string[]): Promise<Map<string, string>> {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const queue = entries.map((entry) => path.resolve(entry));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    // Type-only imports are erased by the compiler; every other import, export … from and import() stays.
    const specifiers = [
      ...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
      ...source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]!);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) queue.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
        packages.set(name, path.relative('.', file));
      }
    }
  }
  return packages;
}

// Loaded only where the sources run as TypeScript (the tests), never by the compiled service.
const SOURCE_ONLY = new Set(['tsx']);

describe('production dependencies', () => {
  it('hold every package the service, the ingest, migrations and the sample import', async () => {
    const reached = await packagesReached([
      'src/main.ts',
      'src/ingest/cli.ts',
      'src/db/migrate-cli.ts',
      'src/sample/cli.ts',
    ]);
    expect(reached.size).toBeGreaterThan(10); // the walk found the service's imports
    const missing = [...reached]
      .filter(([name]) => !(name in pkg.dependencies) && !SOURCE_ONLY.has(name))
      .map(([n, f]) => `${n} (${f})`);
    expect(missing).toEqual([]);
  });
});
