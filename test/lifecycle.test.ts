// The real service process: started as `npm start` starts it (embedded database, sample data), then
// stopped with SIGTERM while requests are in flight; as one process (WORKERS=1) and as a cluster of two
// workers, where the request in flight is in some worker and the primary waits for all of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/port.js';

// Long enough for a cold query to finish on a loaded machine (the answer in flight must come before it ends).
const GRACE_MS = 5_000;
describe.each([
  ['one process', '1'],
  ['two workers', '2'],
])('the service process: %s', (_mode, workers) => {
  let child: ChildProcess;
  let port: number;
  let dataDir: string;
  let output = '';
  let exited: Promise<number | null>;

  /** A raw HTTP exchange, so that the test decides when each byte is sent. */
  function connect(): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
      socket.once('error', reject);
    });
  }

  function received(socket: net.Socket): Promise<string> {
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString()));
    return new Promise((resolve) => socket.on('close', () => resolve(text)));
  }

  beforeAll(async () => {
    port = await freePort();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'lifecycle-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        SAMPLE_DAYS: '3',
        WORKERS: workers,
        LOG_LEVEL: 'info',
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the service did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  describe('the service process', () => {
    it('says where it listens within seconds, though its log is written in batches', async () => {
      const deadline = Date.now() + 5_000;
      while (!output.includes('"msg":"listening on http://127.0.0.1:') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain(`"msg":"listening on http://127.0.0.1:${port}"`);
    });

    it('after seeding its fresh folder, starts again in place with the flags of a later start', async () => {
      // the same pid (npm, a supervisor and signals keep it), now without the seeding's optimised WebAssembly
      expect(output).toContain('starting again in place with the flags of a later start');
      const cmdline = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0');
      expect(cmdline).toContain('--liftoff-only');
    });

    it('answers 431 to headers beyond 16 KB and stays up', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/meta/last-updated`, {
        headers: { 'x-padding': 'x'.repeat(20_000) },
      });
      expect(res.status).toBe(431);
      expect((await fetch(`http://127.0.0.1:${port}/api/meta/last-updated`)).status).toBe(200);
    });

    it(
      'on SIGTERM stops accepting, finishes requests in flight, cuts the stalled ones after the grace period, ' +
        'closes the database and exits 0',
      async () => {
        const query = JSON.stringify({ query: '{ products(amount: "10000", pageSize: 3) { total items { id } } }' });
        const head =
          `POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ` +
          `${Buffer.byteLength(query)}\r\n\r\n`;

        // Two requests in flight: their headers are in, their bodies are not.
        const finishing = await connect();
        const finishingAnswer = received(finishing);
        finishing.write(head + query.slice(0, 10));
        const stalled = await connect();
        const stalledAnswer = received(stalled);
        stalled.write(head + query.slice(0, 10));
        await new Promise((r) => setTimeout(r, 300));

        const stopping = Date.now();
        child.kill('SIGTERM');
        await new Promise((r) => setTimeout(r, 300));

        // No new connections…
        await expect(connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
        // …but the request in flight completes with a real answer.
        finishing.write(query.slice(10));
        const answer = await finishingAnswer;
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer).toMatch(/"total":\d+/);
        expect(Date.now() - stopping).toBeLessThan(GRACE_MS); // its connection is closed once it is idle

        // The stalled one is cut once the grace period is over; the process does not wait for it forever.
        expect(await stalledAnswer).toBe('');
        expect(await exited).toBe(0);
        const took = Date.now() - stopping;
        expect(took).toBeGreaterThanOrEqual(GRACE_MS - 100);
        expect(took).toBeLessThan(GRACE_MS + 8_000);
        expect(output).toMatch(/shutting down/);
        expect(output).toMatch(/"exitCode":0.*"msg":"stopped"/);
        expect(existsSync(path.join(dataDir, 'embedded.lock.json'))).toBe(false); // the database was closed
      },
      60_000,
    );
  });
});
