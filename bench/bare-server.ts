// The bare server of the benchmarks (bench/bare.ts), started beside the service: the service's answer to
// each scenario's first URL is recorded, byte for byte, and replayed by node:http in `processes`
// processes. What it reaches is the floor: this machine, wrk and Node's HTTP, without the service's work.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Recorded } from './bare.js';
import { freePort, root } from './service.js';
import type { WrkScenario } from './wrk.js';

export interface BareServer {
  base: string;
  pid: number;
  stop(): void;
}

export async function startBare(
  service: string,
  scenarios: readonly WrkScenario[],
  processes: number,
  recordingFile: string,
): Promise<BareServer> {
  const recorded: Recorded[] = [];
  for (const s of scenarios) {
    // identity: wrk asks for no compression, and fetch would quietly undo it
    const res = await fetch(`${service}${s.path}`, {
      method: s.method,
      headers: {
        'accept-encoding': 'identity',
        ...s.headers,
        ...(s.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(s.body ? { body: s.body } : {}),
    });
    recorded.push({
      status: res.status,
      headers: [...res.headers].filter(
        ([name]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name),
      ) as [string, string][],
      body: Buffer.from(await res.arrayBuffer()).toString('base64'),
      method: s.method,
      match: s.path.split('?')[0]!,
      notModified: Boolean(s.headers?.['if-none-match']),
    });
  }
  await mkdir(path.dirname(recordingFile), { recursive: true });
  await writeFile(recordingFile, JSON.stringify(recorded));
  const port = await freePort();
  const child = spawn(
    'node',
    ['--import', 'tsx', path.join(root, 'bench', 'bare.ts'), recordingFile, String(port), String(processes)],
    { cwd: root, stdio: 'inherit' },
  );
  const stop = () => void child.kill();
  process.on('exit', stop);
  await new Promise((r) => setTimeout(r, 800));
  return { base: `http://127.0.0.1:${port}`, pid: child.pid!, stop };
}
