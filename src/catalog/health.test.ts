// Health under load: a steady poller is answered from the last good probe while the next is on its way,
// never from one that a failed read has since contradicted.
import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../db/client.js';
import { DatabaseStatus } from '../db/status.js';
import { HealthCheck } from './health.js';
import type { Catalog } from './types.js';

/** A database whose `SELECT 1` answers when the test says, or fails. */
function database() {
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  const prisma = {
    $queryRaw: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
  } as unknown as PrismaClient;
  return { prisma, pending };
}

const catalog = { lastObservedAt: new Date('2026-11-20T06:00:00Z') } as Catalog;
const now = new Date('2026-11-20T07:00:00Z');
const report = (health: HealthCheck) => health.report(catalog, now, 86_400);
const settled = async <T>(promise: Promise<T>) => {
  const seen = await Promise.race([promise.then((v) => ({ v })), new Promise((r) => setTimeout(r, 20, null))]);
  return seen as { v: T } | null;
};

describe('HealthCheck', () => {
  it('answers from the last good probe at once while the next one is asked', async () => {
    const { prisma, pending } = database();
    const health = new HealthCheck(prisma, new DatabaseStatus());
    const first = report(health);
    expect(await settled(first)).toBeNull(); // nothing known yet: the first waits for its probe
    pending.shift()!.resolve();
    expect((await first).status).toBe('ok');

    await new Promise((r) => setTimeout(r, 1_050)); // past the reuse window: a new probe is asked...
    const second = await settled(report(health));
    expect(pending).toHaveLength(1);
    expect(second?.v.status).toBe('ok'); // ...and the answer does not wait for it
  });

  it('waits for the next probe once a read has failed since the last good one', async () => {
    const { prisma, pending } = database();
    const status = new DatabaseStatus();
    const health = new HealthCheck(prisma, status);
    const first = report(health);
    await settled(first);
    pending.shift()!.resolve();
    await first;

    await new Promise((r) => setTimeout(r, 1_050));
    status.failed(); // a read failed: the good probe no longer stands in
    const second = report(health);
    expect(await settled(second)).toBeNull();
    pending.shift()!.reject(new Error('connection refused'));
    expect(await second).toMatchObject({ status: 'degraded', checks: { database: 'unavailable' } });
  });
});
