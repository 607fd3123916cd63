// The service as `npm start` runs it: dist/main.js and everything it imports, bundled into dist/bundle/
// (esbuild, after tsc). Node otherwise resolves, reads and links some 1,800 modules at every start, about
// a second on two cores before the first answer; a bundle loads in a fraction of that (README,
// Performance). tsc's output stays beside it, file by file, for the command-line tools and the benches.
//
// Left outside, loaded from node_modules as before: what finds its own files next to its code
// (PGlite's WebAssembly and data, Prisma's query compiler, pino's worker files), and pg, which Prisma's
// adapter imports too and which must be one module for both. The modules that read files relative to
// themselves (the calculation guide, the web page, the migrations, the template) sit one folder below
// the project's root in both layouts (dist/db/, dist/bundle/), so the same relative paths hold.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_DIR = path.join(root, 'dist', 'bundle');

export const EXTERNAL = ['@electric-sql/pglite', '@electric-sql/pglite-socket', '@prisma/*', 'pg', 'pg-native', 'pino'];

export async function bundle() {
  rmSync(BUNDLE_DIR, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    // The application's thread (src/threads/back.ts) is a second entry: the thread loads it by name.
    entryPoints: { main: 'dist/main.js', back: 'dist/threads/back.js' },
    outdir: BUNDLE_DIR,
    bundle: true,
    // main.ts loads each stage with import(): each stays a chunk of its own, loaded only when reached
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    external: EXTERNAL,
    // CommonJS packages inside an ES module bundle still call require for Node's own modules
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
