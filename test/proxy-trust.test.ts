// The service behind a reverse proxy it trusts (TRUSTED_PROXIES=loopback: the test's connections arrive as
// nginx's would), used by a client that writes X-Forwarded-For itself. The proxy forwards what the client
// sent and appends the address it came from; the service must take that one, for the rate limit and for
// the change streams' cap per address alike. And requests written as a proxy would (absolute form).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySnapshot } from '../src/ingest/apply.js';
import { createTestApp, serve, type TestApp } from './support/app.js';
import { baseSnapshot } from './support/snapshots.js';

const attacker = '198.51.100.66';
const victim = '203.0.113.50';
/** What reaches the service when the attacker sends `X-Forwarded-For: claim` through the proxy. */
const through = (claim: string) => ({ 'x-forwarded-for': `${claim}, ${attacker}` });

describe('behind a trusted proxy', () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    t = await createTestApp({
      seed: (prisma) => applySnapshot(prisma, baseSnapshot('2026-11-20T06:00:00.000Z')),
      env: { TRUSTED_PROXIES: 'loopback', STREAMS_PER_IP: '1', RATE_LIMIT_PER_MINUTE: '10' },
    });
    served = await serve(t.app);
  });
  afterAll(async () => {
    await served?.close();
    await t?.close();
  });

  it('does not let a client use up the change streams of an address it names', async () => {
    const url = `${served.base}/api/changes/stream`;
    const first = await fetch(url, { headers: through(victim) });
    expect(first.status).toBe(200);
    const second = await fetch(url, { headers: through('203.0.113.51') });
    expect(second.status).toBe(429); // one stream per address: the attacker's, whatever it claims
    expect(await second.json()).toMatchObject({ status: 429, detail: expect.stringMatching(/stream/i) as unknown });
    const victims = await fetch(url, { headers: { 'x-forwarded-for': victim } });
    expect(victims.status).toBe(200);
    await Promise.all([first.body!.cancel(), victims.body!.cancel()]);
  });

  it('does not let a client lock out an address it names', async () => {
    for (let i = 0; i < 12; i++)
      await (await fetch(`${served.base}/api/meta/last-updated`, { headers: through(victim) })).text();
    const refused = await fetch(`${served.base}/api/meta/last-updated`, { headers: through(victim) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(
      (await fetch(`${served.base}/api/meta/last-updated`, { headers: { 'x-forwarded-for': victim } })).status,
    ).toBe(200);
  });

  it('answers a request whose target is an absolute URI as its path (RFC 9112 §3.2.2)', async () => {
    const { host, port } = new URL(served.base);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () =>
        socket.write(`GET http://${host}/api/health HTTP/1.1\r\nHost: elsewhere\r\nConnection: close\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 (200|503) /);
    expect(answer).toMatch(/"checks":\{"database"/);
  });
});
