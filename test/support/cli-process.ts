// A command of ours (an npm script's entry point, run through tsx) as a child process whose output a
// test can wait for, line by line.
import { spawn } from 'node:child_process';

export interface CliProcess {
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr (by default) matches `pattern`; rejects if the process ends first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<void>;
  /** The exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals>;
  kill(signal?: NodeJS.Signals): void;
}

export function runCli(entry: string, args: string[], env: NodeJS.ProcessEnv): CliProcess {
  // Only what the test gives: DATABASE_URL or DATA_DIR must not leak in from the test's own environment.
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].on('data', (chunk: Buffer) => {
      output[stream] += chunk.toString();
      for (const listener of listeners) listener();
    });
  }
  // 'close', not 'exit': by then all of its output has arrived.
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.on('close', (code, signal) => resolve(signal ?? code ?? -1)),
  );
  return {
    pid: child.pid!,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    exited,
    kill: (signal = 'SIGKILL') => void child.kill(signal),
    waitFor(pattern, stream = 'stderr') {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output[stream])) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          if (!listeners.has(check)) return;
          listeners.delete(check);
          reject(
            new Error(
              `${entry} ended (${code}) before its ${stream} matched ${pattern}:\n${output.stdout}\n${output.stderr}`,
            ),
          );
        });
      });
    },
  };
}
