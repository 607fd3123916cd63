// A running service picks up a new ingest within seconds: on PostgreSQL the ingest's NOTIFY wakes it
// at once; everywhere a cheap poll of the data version is the fallback (the embedded database cannot
// deliver notifications across its socket).
import pg from 'pg';
import { DATA_VERSION_CHANNEL } from '../ingest/apply.js';
import type { DatabaseStatus } from '../db/status.js';
import type { Logger } from '../logger.js';
import type { CatalogStore } from './store.js';

export interface Watcher {
  /** Looks now, besides the poll and the notifications. */
  refresh(why: string): void;
  stop(): Promise<void>;
}

export interface WatchOptions {
  pollMs: number;
  /** Told how each look at the database went. */
  database?: DatabaseStatus;
  /** PostgreSQL to LISTEN on; absent for the embedded database. */
  listenUrl?: string | undefined;
  logger: Logger;
}

export function watchDataVersion(store: CatalogStore, { pollMs, listenUrl, logger, database }: WatchOptions): Watcher {
  let stopped = false;
  let failing = false;
  let refused: number | null = null;
  const refresh = (why: string) => {
    (database ? database.track(() => store.refresh()) : store.refresh()).then(
      (swapped) => {
        if (failing) logger.info('the database answers again');
        failing = false;
        if (swapped) logger.info({ dataVersion: store.current().version, why }, 'loaded new data');
        const now = store.refused();
        // Once per refused version: it stays refused until a newer one comes.
        if (now && now.version !== refused)
          logger.error(
            { ...now, serving: store.current().version },
            'a new data version is too large for this process; serving the data already loaded',
          );
        refused = now?.version ?? null;
      },
      (err: Error) => {
        // Once per outage, not once per poll; the catalogue keeps serving what it has.
        if (!failing) logger.warn({ err: err.message }, 'cannot check for new data; serving the data already loaded');
        failing = true;
      },
    );
  };

  const timer = setInterval(() => refresh('poll'), pollMs);
  timer.unref();

  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const listen = async () => {
    if (stopped || !listenUrl) return;
    const next = new pg.Client({ connectionString: listenUrl, connectionTimeoutMillis: 5_000 });
    const again = () => {
      next.removeAllListeners();
      next.end().catch(() => {});
      if (!stopped) retry = setTimeout(() => void listen(), 5_000).unref();
    };
    next.on('error', again);
    next.on('notification', () => refresh('notify'));
    try {
      await next.connect();
      await next.query(`LISTEN ${DATA_VERSION_CHANNEL}`);
      client = next;
      refresh('listening'); // anything ingested while we were not listening
    } catch {
      again();
    }
  };
  void listen();

  return {
    refresh,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
