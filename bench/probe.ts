// A URL asked at a fixed interval from a thread of its own. A probe sharing the load generator's event
// loop measures the generator too: at thousands of requests a second its answers wait behind the
// generator's own callbacks, and the service is blamed for the client's queue.
import { Worker } from 'node:worker_threads';

export interface ProbeAnswer {
  status?: number;
  error?: string;
  ms: number;
  /** When it was asked (epoch ms). */
  at: number;
}

// Plain JavaScript: an eval'd worker is not compiled by tsx. Each probe on a new connection, so that a
// cluster's next worker answers it and no keep-alive socket hides a slow accept.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, target, everyMs, timeoutMs } = workerData;
let running = true;
parentPort.on('message', () => (running = false));
const ask = () => new Promise((resolve) => {
  const at = performance.now();
  const asked = Date.now();
  const req = http.get({ host: '127.0.0.1', port, path: target, agent: false, timeout: timeoutMs }, (res) => {
    res.resume();
    res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - at, at: asked }));
    res.on('error', (e) => resolve({ error: e.message, ms: performance.now() - at, at: asked }));
  });
  req.on('timeout', () => req.destroy(new Error('no answer in ' + timeoutMs + ' ms')));
  req.on('error', (e) => resolve({ error: e.message, ms: performance.now() - at, at: asked }));
});
(async () => {
  const answers = [];
  while (running) {
    const at = performance.now();
    answers.push(await ask());
    await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (performance.now() - at))));
  }
  parentPort.postMessage(answers);
})();
`;

/** Asks `target` on 127.0.0.1:`port` every `everyMs` from its own thread until stopped. */
export function probeInThread(port: number, target: string, everyMs: number, timeoutMs = 2000) {
  const worker = new Worker(SOURCE, { eval: true, workerData: { port, target, everyMs, timeoutMs } });
  const answers = new Promise<ProbeAnswer[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const online = new Promise<void>((resolve) => worker.once('online', () => resolve()));
  return {
    /** Resolves once the thread runs (a thread takes the CPU priority of the one that started it). */
    online,
    async stop(): Promise<ProbeAnswer[]> {
      worker.postMessage('stop');
      const all = await answers;
      await worker.terminate();
      return all;
    },
  };
}
