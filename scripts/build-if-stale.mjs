// Builds (npm run build) only when something the build reads is newer than the last build, so that a
// restart or an ingest pays for its own work and not for a compiler run (tsc and vite take 8-20 s; this
// check takes a few milliseconds). A checkout, a pull or an edit gives files a new mtime, so a changed
// tree is always rebuilt; the stamp is written only after a build succeeded, so a failed one is retried.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STAMP = path.join(root, 'dist', '.build-stamp');
/** What `npm run build` reads: the sources, the schema it checks the page against, configs, the lock. */
export const INPUTS = [
  'src',
  'prisma',
  'schema.graphql',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
// Written by the build or by tests, not read by it.
const SKIP = new Set(['node_modules', 'generated', 'gql', '__tests__']);

function newest(file) {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let most = 0;
  for (const entry of readdirSync(file))
    if (!SKIP.has(entry) && !entry.endsWith('.test.ts')) most = Math.max(most, newest(path.join(file, entry)));
  return most;
}

export function isStale() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return true;
  }
  return INPUTS.some((input) => newest(path.join(root, input)) > built);
}

/** Builds when isStale(); exits this process with the build's status if it fails. */
export function buildIfStale() {
  if (!isStale()) return;
  const started = Date.now();
  const run = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  console.error(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) buildIfStale();
