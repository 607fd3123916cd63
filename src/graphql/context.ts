// What every resolver gets: the services (built once) and, per request, the catalogue it reads from
// (taken once, so a reload mid-request cannot mix data versions), the time and fresh dataloaders.
import type { CalcService } from '../catalog/calc-service.js';
import type { ChangeFeed } from '../catalog/change-feed.js';
import type { HealthReport } from '../catalog/health.js';
import type { MarketHistory } from '../catalog/history.js';
import type { CatalogStore } from '../catalog/store.js';
import type { At, Timeline } from '../catalog/timeline.js';
import type { StateTexts } from '../catalog/ledger.js';
import type { Catalog } from '../catalog/types.js';
import type { Config } from '../config.js';
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import { createLoaders, type HistoryCache, type Loaders } from './loaders.js';

export interface Services {
  prisma: PrismaClient;
  store: CatalogStore;
  calc: CalcService;
  market: MarketHistory;
  config: Config;
  health(): Promise<HealthReport>;
  /** What /api/metrics answers: this process's figures, or every process's in a cluster. */
  figures(): Promise<unknown>;
  /** History, events and sources already read, for the current data version. */
  history: HistoryCache;
  /** Whether the database answered lately. */
  database: DatabaseStatus;
  /** The wall clock, injected so tests can hold it still. */
  clock(): Date;
  /** New change events as they are ingested, for the streams and subscriptions. */
  changes: ChangeFeed;
  /** asOf: the version in force at an instant, the past catalogues, the ledger. */
  timeline: Timeline;
  /** The canonical states of versions (GET /api/state). */
  states: StateTexts;
}

export interface Context {
  services: Services;
  catalog: Catalog;
  now: Date;
  loaders: Loaders;
  /** Set by the REST layer: results are reshaped to the REST spelling of enums. */
  rest?: boolean;
  /** The instant and version each root field answered for (see as-of.ts), by response key. */
  answered: Map<string, At>;
  /**
   * Set when the answer depends on the moment it was made, not only on the request and the data: a savings
   * plan whose search was cut short by its request's deadline (under load) is correct, with its gap, but a
   * later request would get a better one, so it is not given again (the REST facade marks it so).
   */
  momentary?: boolean;
}

export function createContext(services: Services): Context {
  const { catalog, now } = services.timeline.present(services.clock());
  return {
    services,
    catalog,
    now,
    loaders: createLoaders(services.prisma, services.history.at(catalog.version), services.database, catalog),
    answered: new Map(),
  };
}
