// An earlier commit of the service, checked out in bench/.baseline/<commit> (git worktree), installed with
// its own lockfile and built with its own scripts, once; kept for later runs. Run on the machine's node by
// default (its package.json may pin none), as it ran then.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { root } from './service.js';

/** The first node on PATH outside node_modules: the machine's, not the project's pinned one. */
export function machineNode(): string {
  const dirs = (process.env.PATH ?? '').split(':').filter((d) => !d.includes('node_modules'));
  for (const d of dirs) if (existsSync(path.join(d, 'node'))) return path.join(d, 'node');
  return 'node';
}

const sh = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env });

/** The short hash of a commit of this repository. */
export const shortCommit = (commit: string): string =>
  execFileSync('git', ['rev-parse', '--short', commit], { cwd: root, encoding: 'utf8' }).trim();

/** The baseline's checkout, installed and built (once; kept for later runs). */
export function baseline(commit: string, node: string): string {
  const sha = shortCommit(commit);
  const dir = path.join(root, 'bench', '.baseline', sha);
  if (!existsSync(path.join(dir, 'dist', 'main.js'))) {
    console.error(`building the baseline ${sha} in ${dir} (once)`);
    if (!existsSync(dir)) sh('git', ['worktree', 'add', '--detach', dir, sha], root);
    // Its npm and node, not ours: the PATH without this project's node_modules.
    const env = { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH}` };
    sh('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir, env);
    sh('npm', ['run', '-s', 'build'], dir, env);
  }
  return dir;
}
