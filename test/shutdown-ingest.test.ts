// SIGTERM to the service while `npm run ingest` writes to the embedded database the service holds: the
// service waits for the ingest (bounded) before it closes the database, instead of cutting the ingest's
// connection half-way through its snapshot (which failed it with a database error, exit 4).
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSnapshots } from '../src/sample/generate.js';
import { upToNow } from './support/snapshots.js';
import { runCli } from './support/cli-process.js';
import { freePort } from './support/port.js';

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
  'SIGTERM while an ingest writes to the embedded database',
  () => {
    it('lets the ingest finish, then closes the database and exits 0', { timeout: 180_000 }, async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'shutdown-ingest-'));
      const env = {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        SAMPLE_DAYS: '2',
        LOG_LEVEL: 'info',
        WORKERS: '2',
      };
      const { DATABASE_URL: _url, ...inherited } = process.env;
      const service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...inherited, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      service.stdout.on('data', (d: Buffer) => (log += d.toString()));
      service.stderr.on('data', (d: Buffer) => (log += d.toString()));
      const exited = new Promise<number | null>((resolve) => service.on('exit', (code) => resolve(code)));
      try {
        for (const deadline = Date.now() + 110_000; !/"msg":"listening on http/.test(log);) {
          if (Date.now() > deadline || service.exitCode !== null) throw new Error(`the service did not start:\n${log}`);
          await new Promise((r) => setTimeout(r, 200));
        }
        // A snapshot large enough to take a few seconds to write: 5 times the sample market.
        const [one] = [...generateSnapshots({ seed: 3, days: 1, ...upToNow(), scale: 5 })];
        const file = path.join(dataDir, 'large.json');
        await writeFile(file, JSON.stringify({ ...one!, observedAt: new Date().toISOString() }));

        const ingest = runCli('src/ingest/cli.ts', [file], env);
        await ingest.waitFor(/connecting to it on port/);
        // the ingest has the writers' turn once it has connected; then the service is told to stop
        await new Promise((r) => setTimeout(r, 500));
        service.kill('SIGTERM');

        expect(await ingest.exited, ingest.stderr()).toBe(0);
        expect(ingest.stdout()).toMatch(/data version: \d+/);
        expect(await exited, log).toBe(0);
        expect(log).toMatch(new RegExp(`waiting up to 60 s for the ingest that is running \\(pid ${ingest.pid}\\)`));
        expect(log).not.toMatch(/still writes/);
      } finally {
        if (service.exitCode === null) service.kill('SIGKILL');
      }
    });
  },
);
