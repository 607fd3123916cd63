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
/**
 * While the next probe is on its way, a good answer this recent still answers at once: a steady poller
 * never waits for the database or the file system, so health under load costs one turn of the event
 * loop (each wait for I/O is another turn, tens of milliseconds each on a saturated loop).
 */
const STALE_MS = 3_000;
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
 * The answer of `ask`, asked again at most once per `reuseMs`; meanwhile the last answer serves at once
 * if it is younger than `staleMs` and `usable`. `ask` must not reject.
 */
class Recent<T> {
  private asked: { at: number; answer: Promise<T> } | null = null;
  private known: { at: number; value: T } | null = null;

  constructor(
    private readonly ask: () => Promise<T>,
    private readonly reuseMs: number,
    private readonly staleMs: number,
  ) {}

  get(usable: (value: T) => boolean): T | Promise<T> {
    const now = performance.now();
    if (!this.asked || now - this.asked.at >= this.reuseMs) {
      const answer = this.ask();
      void answer.then((value) => {
        if (!this.known || this.known.at <= now) this.known = { at: now, value };
      });
      this.asked = { at: now, answer };
    }
    const known = this.known;
    return known && now - known.at < this.staleMs && usable(known.value) ? known.value : this.asked.answer;
  }
}

/**
 * Health is polled by load balancers, often many at once: one probe at a time goes to the database and
 * its answer serves every caller of the next second, so a busy service is not made busier by being asked
 * how it is.
 */
export class HealthCheck {
  private readonly probes: Recent<Probe>;
  private readonly writers: Recent<boolean>;

  constructor(
    prisma: PrismaClient,
    private readonly status?: DatabaseStatus,
    /** Whether a writer (an ingest) has the database's turn now: then it is busy writing, not gone. */
    writing: () => Promise<boolean> = async () => false,
  ) {
    this.probes = new Recent(
      () =>
        databaseAnswers(prisma).then((result) => {
          // Only a failed query marks the database down; a slow answer under load says degraded here but
          // does not switch off caching for everyone (the reads that really fail do that themselves).
          if (result === 'error') this.status?.failed();
          else if (result === 'ok') this.status?.succeeded();
          return result;
        }),
      PROBE_REUSE_MS,
      STALE_MS,
    );
    this.writers = new Recent(() => writing().catch(() => false), PROBE_REUSE_MS, STALE_MS);
  }

  /** A good probe stands in for the next only while no read has failed since (then the next is awaited). */
  private probe(): Probe | Promise<Probe> {
    return this.probes.get((probe) => probe === 'ok' && this.status?.ok() !== false);
  }

  async report(catalog: Catalog, now: Date, maxDataAgeSeconds: number, refused = false): Promise<HealthReport> {
    // An ingest writing to the embedded database holds its one session until it commits: health is not
    // made to wait behind it (the catalogue in memory answers meanwhile), and that is busy, not gone.
    const writing = await this.writers.get(() => true);
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
