// npm run verify: the auditor's tool against a running service. It agrees with an honest one, and
// catches a past plan's rate edited in the database, a ledger entry deleted, and a list reordered on its
// way out (a "sponsored" first place).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/audit/cli.js';
import { verify } from '../src/audit/verify.js';
import { createTestApp, serve, type TestApp } from './support/app.js';

const DAYS = 12;
let opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.reverse()) await o.close();
  opened = [];
});

async function service(): Promise<{ t: TestApp; base: string }> {
  const t = await createTestApp({ days: DAYS });
  // a day after the last snapshot: every version is in the past
  t.clock.now = new Date(t.app.services.store.current().generatedAt.getTime() + 86_400_000);
  const served = await serve(t.app);
  opened.push(t, served);
  return { t, base: served.base };
}

describe('npm run verify', () => {
  it('agrees with an honest service: the chain, every state, and recomputed rankings', async () => {
    const { base } = await service();
    const lines: string[] = [];
    expect(await main([base, '--samples', '40'], (l) => lines.push(l))).toBe(0);
    expect(lines.at(-1)).toMatch(
      new RegExp(`^verified in [\\d.]+ s: ${DAYS} versions chained, ${DAYS} states hashed, 40 rankings recomputed`),
    );
  });

  it("catches a past plan's rate edited directly in the database", async () => {
    const { t, base } = await service();
    // a plan no longer in force: only the past changes
    const [plan] = await t.db.prisma.$queryRawUnsafe<{ id: number }[]>(
      'SELECT min("id") AS "id" FROM "RatePlan" WHERE "validTo" IS NOT NULL',
    );
    await t.db.prisma.$executeRawUnsafe(
      'UPDATE "RatePlan" SET "headlineRate" = "headlineRate" + 0.25 WHERE "id" = $1',
      plan!.id,
    );
    const report = await verify({ base, samples: 5 });
    const states = report.findings.filter((f) => f.kind === 'state');
    expect(states.length).toBeGreaterThan(0);
    expect(report.findings.every((f) => f.kind === 'state' || f.kind === 'ranking')).toBe(true);
  });

  it('catches a deleted ledger entry', async () => {
    const { t, base } = await service();
    await t.db.prisma.$executeRawUnsafe('DELETE FROM "LedgerEntry" WHERE "version" = 5');
    const lines: string[] = [];
    expect(await main([base, '--samples', '3'], (l) => lines.push(l))).toBe(1);
    expect(lines).toContain('DISAGREES at version 6: versions 5–5 are missing from the ledger');
    expect(lines).toContain('DISAGREES at version 6: its chain hash is not that of its fields and the entry before');
  });

  it('catches a list reordered on its way out', async () => {
    const { base } = await service();
    // a proxy that puts the second offer first in every list it passes on
    const proxy = http.createServer(async (req, res) => {
      const body = await new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => resolve(Buffer.concat(chunks)));
      });
      const upstream = await fetch(new URL(req.url!, base), {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(req.method === 'POST' ? { body: body.toString('utf8') } : {}),
      });
      let text = await upstream.text();
      if (req.url === '/graphql') {
        const json = JSON.parse(text) as { data?: { products?: { items: unknown[] } } };
        const items = json.data?.products?.items;
        if (items && items.length > 1) [items[0], items[1]] = [items[1], items[0]];
        text = JSON.stringify(json);
      }
      const headers: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (k !== 'content-length' && k !== 'content-encoding') headers[k] = v;
      });
      res.writeHead(upstream.status, headers).end(text);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    opened.push({ close: () => new Promise((resolve) => proxy.close(() => resolve())) });
    const report = await verify({ base: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, samples: 10 });
    expect(report.findings.length).toBeGreaterThan(0);
    expect(report.findings.every((f) => f.kind === 'ranking')).toBe(true);
  });
});
