// Liveness and readiness: the database answers, and the newest data is younger than the limit.
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import { dataAgeSeconds, dataState, type DataState } from './freshness.js';
import type { Catalog } from './types.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  checks: {
    database: 'ok' | 'unavailable';
    data: DataState;
    /** exceeded: the newest data version has more offers than the memory budget holds; older data is served. */
    capacity: 'ok' | 'exceeded';
  };
  /** Seconds since the newest snapshot was observed; null when there is no data. */
  dataAgeSeconds: number | null;
}

const DB_TIMEOUT_MS = 2_000;
/** Probes asked for within this time of the last one share its answer. */
const PROBE_REUSE_MS = 1_000;
/** A probe stuck behind other queries still counts as a working database if a read succeeded this recently. */
const BUSY_NOT_DOWN_MS = 10_000;

/** Whether the database answered a trivial query in time. */
type Probe = 'ok' | 'timeout' | 'error';

async function databaseAnswers(prisma: PrismaClient): Promise<Probe> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), DB_TIMEOUT_MS);
  });
  const query = prisma.$queryRaw`SELECT 1`.then(
    () => 'ok' as const,
    () => 'error' as const,
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Health is polled by load balancers, often many at once: one probe at a time goes to the database and
 * its answer serves every caller of the next second, so a busy service is not made busier by being asked
 * how it is.
 */
export class HealthCheck {
  private last: { at: number; probe: Promise<Probe> } | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly status?: DatabaseStatus,
    /** Whether a writer (an ingest) has the database's turn now: then it is busy writing, not gone. */
    private readonly writing: () => Promise<boolean> = async () => false,
  ) {}

  private probe(): Promise<Probe> {
    const now = performance.now();
    if (this.last && now - this.last.at < PROBE_REUSE_MS) return this.last.probe;
    const probe = databaseAnswers(this.prisma).then((result) => {
      // Only a failed query marks the database down; a slow answer under load says degraded here but does
      // not switch off caching for everyone (the reads that really fail do that themselves).
      if (result === 'error') this.status?.failed();
      else if (result === 'ok') this.status?.succeeded();
      return result;
    });
    this.last = { at: now, probe };
    return probe;
  }

  async report(catalog: Catalog, now: Date, maxDataAgeSeconds: number, refused = false): Promise<HealthReport> {
    // An ingest writing to the embedded database holds its one session until it commits: health is not
    // made to wait behind it (the catalogue in memory answers meanwhile), and that is busy, not gone.
    const writing = await this.writing().catch(() => false);
    const probe = writing ? 'ok' : await this.probe();
    // A slow probe under load waits in the connection queue behind the traffic; the reads ahead of it
    // are what tells a busy database from a gone one.
    const busy =
      probe === 'timeout' && (this.status?.answeredWithin(BUSY_NOT_DOWN_MS) === true || this.status?.busy() === true);
    const database = (probe === 'timeout' && !busy) || probe === 'error' ? 'unavailable' : 'ok';
    // The data judged is the data served: the catalogue's, with or without the database.
    const data = dataState(catalog.lastObservedAt, now, maxDataAgeSeconds);
    const capacity = refused ? 'exceeded' : 'ok';
    return {
      status: database === 'ok' && data === 'ok' && capacity === 'ok' ? 'ok' : 'degraded',
      checks: { database, data, capacity },
      dataAgeSeconds: dataAgeSeconds(catalog.lastObservedAt, now),
    };
  }
}
