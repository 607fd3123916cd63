// The clients of `npm run bench:stream`, in a process of their own (several, in parallel), so that the
// service and the load generator do not share an event loop: each opens its share of SSE connections
// to /api/changes/stream and notes when each event id reaches each connection (epoch milliseconds from
// the same clock as the parent's, performance.timeOrigin + now). It talks to the parent over IPC:
// 'ready' once every connection has its opening, 'report' with the arrivals on request.
import http from 'node:http';

interface Options {
  base: string;
  count: number;
  /** Queries, used in turn (no filter, an amount, a filter and an amount). */
  queries: string[];
}

const options = JSON.parse(process.argv[2]!) as Options;
const now = () => performance.timeOrigin + performance.now();

/** Per event id: when it reached each connection. */
let arrivals = new Map<string, number[]>();
let connected = 0;
let ended = 0;
const requests: http.ClientRequest[] = [];

function open(i: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${options.base}/api/changes/stream${options.queries[i % options.queries.length]}`,
      { agent: false },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`stream ${i}: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let text = '';
        let opened = false;
        res.on('data', (chunk: string) => {
          const at = now();
          text += chunk;
          let end: number;
          while ((end = text.indexOf('\n\n')) >= 0) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            if (!opened && block.startsWith('retry:')) {
              opened = true;
              connected++;
              resolve();
              continue;
            }
            const id = /^id: (\d+)\nevent: (?!position\n|reset\n)/.exec(block)?.[1];
            if (!id) continue; // a heartbeat, or the stream's position
            let times = arrivals.get(id);
            if (!times) arrivals.set(id, (times = []));
            times.push(at);
          }
        });
        res.on('end', () => ended++);
        res.on('error', () => ended++);
      },
    );
    req.on('error', reject);
    requests.push(req);
  });
}

async function main() {
  // A few dozen at a time: a thousand SYNs at once overflow the listen backlog.
  for (let i = 0; i < options.count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, options.count - i) }, (_, k) => open(i + k)));
  }
  process.send!({ type: 'ready', connected });
  process.on('message', (message: { type: string }) => {
    if (message.type === 'report') {
      process.send!({ type: 'report', arrivals: Object.fromEntries(arrivals), connected, ended });
      arrivals = new Map();
    }
    if (message.type === 'close') {
      for (const req of requests) req.destroy();
      setTimeout(() => process.exit(0), 100);
    }
  });
}

main().catch((err: Error) => {
  process.send!({ type: 'error', message: err.message });
  process.exit(1);
});
