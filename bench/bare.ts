// The benchmark's comparator: a bare node:http server that answers each request with the very bytes and
// headers the service gave for that kind of URL (recorded first), in as many processes as the service
// has workers (node:cluster, like the service). What it reaches is what this machine, this load
// generator and Node's HTTP can do; the service's ratio to it is the cost of the service's own work.
// node --import tsx bench/bare.ts RECORDING.json PORT WORKERS
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import http from 'node:http';

export interface Recorded {
  status: number;
  headers: [string, string][];
  /** base64 */
  body: string;
  method: string;
  /** The path the answer is for; a detail's answer serves every /api/products/{id}. */
  match: string;
  notModified: boolean;
}

const [file, port, workers] = process.argv.slice(2);
if (cluster.isPrimary && Number(workers) > 1) {
  for (let i = 0; i < Number(workers); i++) cluster.fork();
} else {
  const recorded = (JSON.parse(readFileSync(file!, 'utf8')) as Recorded[]).map((r) => ({
    ...r,
    bytes: Buffer.from(r.body, 'base64'),
    head: Object.fromEntries(r.headers),
  }));
  const isDetail = (p: string) => p.startsWith('/api/products/') && p !== '/api/products/export';
  http
    .createServer((req, res) => {
      const p = req.url!.split('?', 1)[0]!;
      const inm = Boolean(req.headers['if-none-match']);
      const r =
        recorded.find(
          (x) =>
            x.method === req.method && x.notModified === inm && (x.match === p || (isDetail(p) && isDetail(x.match))),
        ) ?? recorded[0]!;
      req.resume();
      req.on('end', () => {
        res.writeHead(r.status, r.head);
        res.end(r.bytes);
      });
    })
    .listen(Number(port), '127.0.0.1');
}
