// Liveness and readiness: the database answers, and the newest data is younger than the limit.
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import type { Catalog } from './types.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  checks: { database: 'ok' | 'unavailable'; data: 'ok' | 'stale' | 'empty' };
  /** Seconds since the newest snapshot was observed; null when there is no data. */
  dataAgeSeconds: number | null;
}

const DB_TIMEOUT_MS = 2_000;

/** The newest snapshot's time, or undefined when the database does not answer in time. */
async function newestSnapshot(prisma: PrismaClient): Promise<Date | null | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), DB_TIMEOUT_MS);
  });
  const query = prisma.ingestRun
    .findFirst({ orderBy: { observedAt: 'desc' }, select: { observedAt: true } })
    .then((row) => row?.observedAt ?? null)
    .catch(() => undefined);
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkHealth(prisma: PrismaClient, catalog: Catalog, now: Date, maxDataAgeSeconds: number, status?: DatabaseStatus): Promise<HealthReport> {
  const newest = await newestSnapshot(prisma);
  const database = newest === undefined ? 'unavailable' : 'ok';
  if (database === 'ok') status?.succeeded();
  else status?.failed();
  // Without the database, the catalogue still knows how old the data it serves is.
  const observed = newest === undefined ? catalog.lastObservedAt : newest;
  const dataAgeSeconds = observed ? Math.max(0, Math.floor((now.getTime() - observed.getTime()) / 1000)) : null;
  const data = dataAgeSeconds === null ? 'empty' : dataAgeSeconds > maxDataAgeSeconds ? 'stale' : 'ok';
  return { status: database === 'ok' && data === 'ok' ? 'ok' : 'degraded', checks: { database, data }, dataAgeSeconds };
}
