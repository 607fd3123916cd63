// npm run bench [-- --scale N --duration S --connections C]
// The service against the limit of this machine, in one run: beside the service (A) a bare node:http
// server (B) answers every request with the very bytes and headers the service gave for that URL.
// Each scenario runs A B A B (loopback only, bounded in time); per scenario: req/s, p50 and p99 of
// both, and the ratio. Writes bench/results/http-<time>.json so runs can be compared.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { freePort, root, startService } from './service.js';
import { arg } from './support.js';

const scale = Number(arg('scale', '1'));
const days = Number(arg('days', scale === 1 ? '400' : '30'));
const duration = Number(arg('duration', '5'));
const connections = Number(arg('connections', '32'));
const latencyConnections = Number(arg('latency-connections', '4'));
/** PostgreSQL instead of the embedded database (the production set-up); seeded once. */
const databaseUrl = arg('database-url', '');

interface Scenario {
  name: string;
  /** Throughput scenarios keep many requests in flight; latency scenarios a few, as interactive clients do. */
  connections: number;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A new URL for every request (the calculation cannot be reused). */
  vary?: (n: number) => string;
}

interface Measured {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

async function cannon(base: string, s: Scenario): Promise<Measured> {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections: s.connections,
    duration,
    requests: [
      {
        method: s.method,
        path: s.path,
        headers: { ...s.headers, ...(s.body ? { 'content-type': 'application/json' } : {}) },
        ...(s.body ? { body: s.body } : {}),
        ...(s.vary ? { setupRequest: (req: autocannon.Request) => ({ ...req, path: s.vary!(n++) }) } : {}),
      },
    ],
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    // a 304 scenario answers 304 on purpose
    non2xx: s.headers?.['if-none-match'] ? 0 : result.non2xx,
  };
}

const mean = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;

async function main() {
  const running = await startService({ scale, days, ...(databaseUrl ? { databaseUrl } : {}) });
  const { base, startToFirstAnswerMs } = running;
  try {
    const rssStart = ((await (await fetch(`${base}/api/metrics`)).json()) as { process: { rssMb: number } }).process
      .rssMb;

    const detailIds = (
      (await (await fetch(`${base}/api/products?type=all&pageSize=500`)).json()) as { items: { id: string }[] }
    ).items.map((i) => i.id);
    const listEtag = (await fetch(`${base}/api/products?type=all`)).headers.get('etag')!;
    const graphql = JSON.stringify({
      query:
        '{ products(type: ALL, amount: "25000") { total items { id name headlineRate institution { id name country } dgs { covered uncovered fullyCovered sharedWith } calc { comparableYield returnPerYear netInterest } } } }',
    });
    // New amounts: 1,000.00 to 1,099,999.99 in cents, never the same twice.
    const amount = (n: number) => (1000 + ((n * 7919) % 1_099_000) + (n % 97) / 100).toFixed(2);
    const scenarios: Scenario[] = [
      { name: 'a warm list (type=all)', connections, method: 'GET', path: '/api/products?type=all' },
      {
        name: 'b 304 (If-None-Match)',
        connections,
        method: 'GET',
        path: '/api/products?type=all',
        headers: { 'if-none-match': listEtag },
      },
      {
        name: 'c cold list (new amount each)',
        connections: latencyConnections,
        method: 'GET',
        path: `/api/products?type=all&amount=${amount(0)}`,
        vary: (n) => `/api/products?type=all&amount=${amount(n + 1)}`,
      },
      {
        name: 'd detail with steps (new amount each)',
        connections: latencyConnections,
        method: 'GET',
        path: `/api/products/${detailIds[0]}?amount=${amount(0)}`,
        vary: (n) => `/api/products/${detailIds[n % detailIds.length]}?amount=${amount(n + 1)}`,
      },
      {
        name: 'e GraphQL POST products',
        connections: latencyConnections,
        method: 'POST',
        path: '/graphql',
        body: graphql,
      },
      {
        name: 'f CSV export (type=all)',
        connections: latencyConnections,
        method: 'GET',
        path: '/api/products/export?type=all',
      },
    ];

    // What the service answers, byte for byte, for each scenario's URL: the bare server replays it.
    const recorded: Record<string, { status: number; headers: [string, string][]; body: string }> = {};
    for (const s of scenarios) {
      // identity: autocannon asks for no compression, and fetch would quietly undo it
      const res = await fetch(`${base}${s.path}`, {
        method: s.method,
        headers: {
          'accept-encoding': 'identity',
          ...s.headers,
          ...(s.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(s.body ? { body: s.body } : {}),
      });
      const headers = [...res.headers].filter(
        ([name]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name),
      );
      recorded[s.name] = { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
    }
    const barePort = await freePort();
    const recordingFile = path.join(root, 'bench', '.recorded.json');
    await writeFile(
      recordingFile,
      JSON.stringify(
        Object.values(recorded).map((r, i) => ({
          ...r,
          match: scenarios[i]!.path.split('?')[0],
          method: scenarios[i]!.method,
          notModified: Boolean(scenarios[i]!.headers?.['if-none-match']),
        })),
      ),
    );
    const bare = spawn(
      'node',
      [
        '-e',
        `const http=require('http');const rec=require(${JSON.stringify(recordingFile)}).map(r=>({...r,body:Buffer.from(r.body,'base64')}));
         http.createServer((req,res)=>{const p=req.url.split('?')[0];const inm=!!req.headers['if-none-match'];
           const r=rec.find(x=>x.method===req.method&&x.notModified===inm&&(x.match===p||p.startsWith('/api/products/')&&x.match.startsWith('/api/products/')&&x.match!=='/api/products/export'))||rec[0];
           req.resume();req.on('end',()=>{res.writeHead(r.status,Object.fromEntries(r.headers));res.end(r.body);});
         }).listen(${barePort},'127.0.0.1');`,
      ],
      { stdio: 'inherit' },
    );
    process.on('exit', () => bare.kill());
    await new Promise((r) => setTimeout(r, 300));
    const bareBase = `http://127.0.0.1:${barePort}`;

    const results = [];
    for (const s of scenarios) {
      const a: Measured[] = [];
      const b: Measured[] = [];
      for (let round = 0; round < 2; round++) {
        a.push(await cannon(base, s));
        b.push(await cannon(bareBase, s));
      }
      const service = {
        requestsPerSecond: mean(a.map((m) => m.requestsPerSecond)),
        p50Ms: mean(a.map((m) => m.p50Ms)),
        p99Ms: mean(a.map((m) => m.p99Ms)),
        errors: a.reduce((n, m) => n + m.errors + m.non2xx, 0),
      };
      const limit = {
        requestsPerSecond: mean(b.map((m) => m.requestsPerSecond)),
        p50Ms: mean(b.map((m) => m.p50Ms)),
        p99Ms: mean(b.map((m) => m.p99Ms)),
      };
      const row = {
        scenario: s.name,
        connections: s.connections,
        service,
        bare: limit,
        ratio: Math.round((service.requestsPerSecond / limit.requestsPerSecond) * 100) / 100,
      };
      results.push(row);
      console.error(
        `${s.name.padEnd(40)} c=${String(s.connections).padEnd(3)} service ${String(service.requestsPerSecond).padStart(6)} req/s p50 ${service.p50Ms} p99 ${service.p99Ms} ms | bare ${String(limit.requestsPerSecond).padStart(6)} req/s p50 ${limit.p50Ms} p99 ${limit.p99Ms} ms | ratio ${row.ratio}${service.errors ? ` | ${service.errors} errors` : ''}`,
      );
    }
    bare.kill();
    const metrics = (await (await fetch(`${base}/api/metrics`)).json()) as {
      process: { rssMb: number };
      caches: unknown;
    };
    const summary = {
      at: new Date().toISOString(),
      scale,
      days,
      database: running.database,
      duration,
      connections,
      startToFirstAnswerMs,
      rssMb: { start: rssStart, end: metrics.process.rssMb },
      caches: metrics.caches,
      results,
    };
    await mkdir(path.join(root, 'bench', 'results'), { recursive: true });
    const file = path.join(
      root,
      'bench',
      'results',
      `http-s${scale}-${summary.database}-${summary.at.replace(/[:.]/g, '-')}.json`,
    );
    await writeFile(file, JSON.stringify(summary, null, 2));
    console.error(
      `start to first answer ${startToFirstAnswerMs} ms; resident memory ${rssStart} MB at start, ${metrics.process.rssMb} MB at the end; written to ${path.relative(root, file)}`,
    );
  } finally {
    await running.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    console.error(err);
    process.exit(1);
  },
);
