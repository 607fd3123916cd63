// The HTTP front on its own, in front of an upstream that misbehaves on purpose.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { BodyCache } from './body-cache.js';
import { problemType } from '../request/errors.js';
import { MAX_URL_LENGTH } from './admission.js';
import { createHttpHandler, type HttpDeps } from './handler.js';
import { NO_REUSE } from '../request/reuse.js';

function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger('info', stream) };
}

function handlerWith(upstream: HttpDeps['upstream'], extra: Partial<HttpDeps> = {}) {
  const log = capturedLog();
  const handler = createHttpHandler({
    upstream,
    cache: new BodyCache(1_000_000),
    reuseKey: (pathAndQuery) => ({ key: pathAndQuery, reuse: 'version' }),
    cacheable: () => true,
    version: () => 1,
    clock: () => new Date('2026-11-23T12:00:00Z'),
    logger: log.logger,
    requestTimeoutMs: 30_000,
    ...extra,
  });
  return { handler, log };
}

const ok = () => Promise.resolve(new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } }));

describe('an upstream that fails', () => {
  it('is answered with a masked 500 problem, logged with the request id', async () => {
    const { handler, log } = handlerWith(() =>
      Promise.reject(new Error('connection string postgres://admin:hunter2@10.1.2.3')),
    );
    const res = await handler.fetch(new Request('http://x/api/products', { headers: { 'x-request-id': 'req-42' } }));
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('x-request-id')).toBe('req-42');
    const body = await res.text();
    expect(JSON.parse(body)).toMatchObject({ status: 500, type: problemType('INTERNAL_SERVER_ERROR') });
    expect(body).not.toMatch(/hunter2|10\.1\.2\.3|postgres:/);
    const logged = log.lines.find((l) => l.msg === 'unexpected error');
    expect(logged).toMatchObject({ requestId: 'req-42', err: { message: expect.stringContaining('hunter2') } });
  });

  it('that does not answer in time is answered 503 with Retry-After, and nothing is cached', async () => {
    let calls = 0;
    const { handler } = handlerWith(
      () => {
        calls += 1;
        return calls === 1 ? new Promise<Response>(() => {}) : ok();
      },
      { requestTimeoutMs: 50 },
    );
    const started = Date.now();
    const late = await handler.fetch(new Request('http://x/api/products'));
    expect(late.status).toBe(503);
    expect(Number(late.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await late.json()).toMatchObject({ status: 503, type: problemType('SERVICE_UNAVAILABLE') });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await handler.fetch(new Request('http://x/api/products'))).status).toBe(200);
    expect(calls).toBe(2);
  });
});

describe('on a node server', () => {
  let server: http.Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(handler: ReturnType<typeof handlerWith>['handler']): Promise<string> {
    server = http.createServer({ maxHeaderSize: 16 * 1024 }, handler.listener);
    server.on('clientError', handler.clientError);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Bytes written as they are (what fetch would not send), and everything the server answers until it closes. */
  const exchange = (base: string, raw: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(base).port), '127.0.0.1', () => socket.end(raw));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });

  it('limits each client to its rate when asked to, answering 429 with Retry-After', async () => {
    const { handler } = handlerWith(ok, { rateLimitPerMinute: 3 });
    const base = await serve(handler);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${base}/api/meta?i=${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await fetch(`${base}/api/meta`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(20);
    expect(await refused.json()).toMatchObject({ status: 429, type: problemType('TOO_MANY_REQUESTS') });
    // A forwarded-for header is a client's claim, not an identity, unless the proxy is trusted.
    expect((await fetch(`${base}/api/meta`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(429);
  });

  it('applies the same gate to app.fetch: the rate limit (with its headers), the bounds, the cache', async () => {
    let upstreamCalls = 0;
    const { handler } = handlerWith(
      () => {
        upstreamCalls++;
        return ok();
      },
      { rateLimitPerMinute: 2 },
    );
    const get = (path: string) => handler.fetch(new Request(`http://test.local${path}`));
    const first = await get('/api/meta');
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect((await get('/api/meta')).status).toBe(200); // from the cache: counted all the same
    expect(upstreamCalls).toBe(1);
    const refused = await get('/api/meta');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    const unlimited = handlerWith(ok).handler;
    const long = await unlimited.fetch(new Request(`http://test.local/api/meta?q=${'x'.repeat(MAX_URL_LENGTH)}`));
    expect(long.status).toBe(414);
  });

  it('tells clients apart by X-Forwarded-For behind a trusted proxy', async () => {
    const { handler } = handlerWith(ok, { rateLimitPerMinute: 1, trustedProxies: ['loopback', '10.0.0.0/8'] });
    const base = await serve(handler);
    const as = (ip: string) =>
      fetch(`${base}/api/meta`, { headers: { 'x-forwarded-for': `${ip}, 10.0.0.1` } }).then((r) => r.status);
    expect([await as('203.0.113.1'), await as('203.0.113.2'), await as('203.0.113.1')]).toEqual([200, 200, 429]);
  });

  // A client behind the proxy (this test's loopback peer) sends X-Forwarded-For as it likes; the proxy
  // appends the address it came from ($proxy_add_x_forwarded_for), which is all that can be believed.
  describe('a client behind a trusted proxy that forges X-Forwarded-For', () => {
    const attacker = '198.51.100.66';
    const forged = (claim: string) => ({ 'x-forwarded-for': `${claim}, ${attacker}` });

    it('cannot lock out the address it names', async () => {
      const { handler } = handlerWith(ok, { rateLimitPerMinute: 10, trustedProxies: ['loopback'] });
      const base = await serve(handler);
      const victim = '203.0.113.50';
      const statuses = [];
      for (let i = 0; i < 12; i++)
        statuses.push((await fetch(`${base}/api/meta?i=${i}`, { headers: forged(victim) })).status);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2); // the attacker's own quota ran out
      expect((await fetch(`${base}/api/meta`, { headers: { 'x-forwarded-for': victim } })).status).toBe(200);
    });

    it('cannot escape the limit by naming another address each time, and is logged as itself', async () => {
      const { handler, log } = handlerWith(ok, { rateLimitPerMinute: 30, trustedProxies: ['loopback'] });
      const base = await serve(handler);
      const statuses = [];
      const started = Date.now();
      for (let i = 0; i < 40; i++)
        statuses.push((await fetch(`${base}/api/meta?i=${i % 5}`, { headers: forged(`203.0.113.${i}`) })).status);
      // The bucket refills a token every 2 s (30 a minute): a slow machine earns the attacker those, no more.
      const refilled = Math.floor((Date.now() - started) / 2000);
      const passed = statuses.filter((s) => s === 200).length;
      expect(passed).toBeGreaterThanOrEqual(30);
      expect(passed).toBeLessThanOrEqual(30 + refilled);
      const requests = log.lines.filter((l) => l.msg === 'request');
      expect(requests).toHaveLength(40); // answered upstream, from the cache and refused alike
      expect(new Set(requests.map((l) => l.client))).toEqual(new Set([attacker]));
    });
  });

  it('has no limit by default', async () => {
    const { handler } = handlerWith(ok);
    const base = await serve(handler);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => fetch(`${base}/api/meta?i=${i}`).then((r) => r.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it.each([
    [
      'headers over 16 KB',
      `GET /api/meta HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`,
      431,
      'REQUEST_HEADERS_TOO_LARGE',
    ],
    ['a request line that is not HTTP', 'GET /api/meta SPDY/9\r\n\r\n', 400, 'BAD_REQUEST'],
  ] as const)(
    'answers %s Node cannot parse with a problem, not a bare status line',
    async (_what, raw, status, code) => {
      const answer = await exchange(await serve(handlerWith(ok).handler), raw);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head!.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`);
      expect(head).toMatch(/content-type: application\/problem\+json/i);
      expect(head).toMatch(/access-control-allow-origin: \*/i);
      expect(JSON.parse(body!)).toMatchObject({ status, type: problemType(code) });
    },
  );

  it('routes an absolute-form target by its path, its authority as the host (RFC 9112 §3.2.2)', async () => {
    const seen: string[] = [];
    const { handler } = handlerWith(
      (request) => {
        seen.push(`${request.headers.get('host')} ${new URL(request.url).pathname}${new URL(request.url).search}`);
        return ok();
      },
      { reuseKey: () => null },
    );
    const base = await serve(handler);
    const { host } = new URL(base);
    const answer = await exchange(base, `GET http://${host}/api/health?x=1 HTTP/1.1\r\nHost: elsewhere\r\n\r\n`);
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(seen).toEqual([`${host} /api/health?x=1`]);

    const refused = await exchange(base, `GET ftp://${host}/api/health HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(refused.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(/\{.*\}/s.exec(refused)![0])).toMatchObject({
      status: 400,
      type: problemType('BAD_REQUEST'),
      detail: expect.stringMatching(/request target/) as unknown,
    });
    expect(seen).toHaveLength(1);
  });

  it('refuses an over-long URL with 414 before the application sees it', async () => {
    let reached = 0;
    const { handler } = handlerWith(() => {
      reached += 1;
      return ok();
    });
    const base = await serve(handler);
    const res = await fetch(`${base}/api/products?zoek=${'a'.repeat(MAX_URL_LENGTH)}`);
    expect(res.status).toBe(414);
    expect(await res.json()).toMatchObject({ status: 414, type: problemType('URI_TOO_LONG') });
    expect(reached).toBe(0);
  });
});

describe('reuse of finished answers', () => {
  it(
    'answers again from the cache while the data version stays, and what depends on the clock for a minute at ' +
      'most',
    async () => {
      let version = 1;
      const clock = { now: new Date('2026-11-23T12:00:10Z') };
      let calls = 0;
      const { handler } = handlerWith(
        () => {
          calls++;
          return ok();
        },
        {
          version: () => version,
          clock: () => clock.now,
          reuseKey: (path) =>
            path.includes('never') ? null : { key: path, reuse: path.includes('clock') ? 'minute' : 'version' },
        },
      );
      const get = async (path: string) => (await handler.fetch(new Request(`http://test.local${path}`))).status;
      for (const path of ['/data', '/clock', '/never']) await get(path);
      expect(calls).toBe(3);
      clock.now = new Date('2026-11-23T12:00:50Z');
      for (const path of ['/data', '/clock', '/never']) await get(path);
      expect(calls).toBe(4); // only /never went upstream again
      clock.now = new Date('2026-11-23T12:01:00Z');
      for (const path of ['/data', '/clock']) await get(path);
      expect(calls).toBe(5); // the next minute: /clock again
      version = 2;
      await get('/data');
      expect(calls).toBe(6); // new data: /data again
    },
  );
});

describe('what an 8 KB URL leaves behind', () => {
  it('an answer marked not for reuse is not kept, and the mark does not reach the client', async () => {
    let calls = 0;
    const { handler } = handlerWith(() => {
      calls++;
      return Promise.resolve(
        new Response('{"errors":[{"message":"no"}]}', {
          headers: { 'content-type': 'application/json', [NO_REUSE]: '1' },
        }),
      );
    });
    for (let i = 0; i < 2; i++) {
      const res = await handler.fetch(new Request('http://test.local/graphql?x=1'));
      expect(res.status).toBe(200);
      expect(res.headers.has(NO_REUSE)).toBe(false);
    }
    expect(calls).toBe(2);
  });

  it('is logged with at most 1 KB of its query and the query length, a line a pipe writes in one piece', async () => {
    const { handler, log } = handlerWith(ok);
    const url = `/data?x=1&j=${'x'.repeat(MAX_URL_LENGTH - 12)}`;
    await handler.fetch(new Request(`http://test.local${url}`));
    const line = log.lines.find((l) => l.msg === 'request')!;
    expect(JSON.stringify(line).length).toBeLessThan(4096);
    expect(line).toMatchObject({ path: '/data', queryLength: url.length - '/data'.length });
    expect(String(line.query)).toMatch(/^\?x=1&j=x+…$/);
  });
});
