// The change feed: one publisher per process that pushes every new change event to whoever follows
// changes here (Server-Sent Events at /api/changes/stream, the GraphQL subscription `changes`).
//
// - Woken by the catalogue's swap (the reload signal: LISTEN/NOTIFY on PostgreSQL, the data-version
//   poll on the embedded database), it reads the events after the last one it has (`id > position`)
//   once per data version, whatever the number of followers, with what their impact needs, appends
//   them to the tail (the replay window, change-tail.ts) and wakes the followers they concern. Every
//   instance on the database does the same, so an ingest made through any of them reaches the
//   followers of all.
// - A follower (follower.ts) is a cursor into the tail: live or resuming, it reads the same events in
//   memory, filtered for itself. A resume older than the window gets a reset, not a replay.
// - At most so many followers per client address; on shutdown every follower is ended.
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import type { Logger } from '../logger.js';
import { ANY_CHANGE, changesAfter, changesUpTo, newestChangeId, type ChangeItem, type FeedEvent } from './changes.js';
import { ChangeTail, type TailStats } from './change-tail.js';
import {
  FeedClosedError,
  Follower,
  StreamLimitError,
  type FollowerHub,
  type FollowOptions,
  type Transport,
} from './follower.js';
import { loadImpactBases } from './impact-basis.js';
import type { CatalogStore } from './store.js';

export {
  FeedClosedError,
  Follower,
  SinceAheadError,
  StreamLimitError,
  TRANSPORTS,
  type EndReason,
  type FollowOptions,
  type Transport,
} from './follower.js';

export interface FeedStats {
  /** Followers now, by transport. */
  open: Record<Transport, number>;
  /** Events handed to followers since start, by transport. */
  sent: Record<Transport, number>;
  /** Followers cut for reading too slowly, since start. */
  cut: Record<Transport, number>;
  /** Followers that asked to resume from before the window and were told to re-read (a reset), since start. */
  resets: Record<Transport, number>;
  /** The id of the newest event the feed has read. */
  position: number;
  /** Reads of new events (one per data version that brought events). */
  reads: number;
  /** The replay window. */
  tail: TailStats;
}

export interface ChangeFeed {
  /** The id of the newest event read: a follower starting now starts after it. */
  position(): number;
  follow(options: FollowOptions): Follower;
  stats(): FeedStats;
  /** Ends every follower and refuses new ones (shutdown). */
  close(): void;
}

export interface ChangeFeedOptions {
  prisma: PrismaClient;
  store: CatalogStore;
  logger: Logger;
  database?: DatabaseStatus;
  maxPerClient: number;
  /** How many of the newest events a follower may resume from (older: a reset). */
  replayEvents: number;
  heartbeatMs: number;
  /** Events per database read (new events, older ones for the window). */
  pageSize?: number;
}

const zero = (): Record<Transport, number> => ({ sse: 0, graphql: 0 });

/** What sending an event costs, roughly: its JSON (the text fields and what changed) and the frame around it. */
const sizeOf = (e: ChangeItem) =>
  256 + e.summary.length + (e.from ? JSON.stringify(e.from).length : 0) + (e.to ? JSON.stringify(e.to).length : 0);

/** Events read with what following them needs: their impact basis and their size. */
async function withBases(prisma: PrismaClient, items: ChangeItem[]): Promise<FeedEvent[]> {
  const bases = await loadImpactBases(prisma, items);
  return items.map((e) => ({ ...e, basis: bases.get(String(e.id)) ?? null, size: sizeOf(e) }));
}

export async function createChangeFeed({
  prisma,
  store,
  logger,
  database,
  maxPerClient,
  replayEvents,
  heartbeatMs,
  pageSize = 500,
}: ChangeFeedOptions): Promise<ChangeFeed> {
  const track = <T>(read: () => Promise<T>) => (database ? database.track(read) : read());
  let position = await track(() => newestChangeId(prisma));
  let closed = false;
  const followers = new Set<Follower>();
  const perClient = new Map<string, number>();
  const open = zero();
  const sent = zero();
  const cut = zero();
  const resets = zero();
  let reads = 0;
  const tail = new ChangeTail(
    replayEvents,
    position,
    (atMost, limit) => track(async () => withBases(prisma, await changesUpTo(prisma, atMost, limit))),
    pageSize,
  );
  // Clients resuming from an id this process has not read yet ask the database for its newest id: one
  // question at a time, shared by all who ask meanwhile.
  let asking: Promise<number> | null = null;

  const hub: FollowerHub = {
    tail,
    position: () => position,
    newestInDatabase() {
      asking ??= track(() => newestChangeId(prisma)).finally(() => (asking = null));
      return asking;
    },
    register(follower) {
      if (closed) throw new FeedClosedError();
      const { client, transport } = follower.options;
      const count = perClient.get(client) ?? 0;
      if (count >= maxPerClient) throw new StreamLimitError(maxPerClient);
      perClient.set(client, count + 1);
      followers.add(follower);
      open[transport]++;
    },
    unregister(follower) {
      if (!followers.delete(follower)) return;
      const { client, transport } = follower.options;
      const count = (perClient.get(client) ?? 1) - 1;
      if (count > 0) perClient.set(client, count);
      else perClient.delete(client);
      open[transport]--;
    },
    counted(follower, n) {
      sent[follower.transport] += n;
    },
    cut(follower) {
      cut[follower.transport]++;
      logger.warn(
        { client: follower.options.client, transport: follower.transport },
        'a change stream left what it was sent unread (or fell behind the replay window); cut',
      );
    },
    reset(follower) {
      resets[follower.transport]++;
    },
  };

  function publish(events: FeedEvent[]) {
    position = events.at(-1)!.id;
    tail.append(events);
    for (const follower of [...followers]) follower.arrived(events);
  }

  // One read at a time; a swap during a read makes it read again after.
  let reading = false;
  let again = false;
  let failing = false;
  let retry: NodeJS.Timeout | undefined;
  async function readNew(): Promise<void> {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        for (;;) {
          const events = await track(async () =>
            withBases(prisma, await changesAfter(prisma, position, ANY_CHANGE, pageSize)),
          );
          if (events.length === 0) break;
          reads++;
          publish(events);
          if (events.length < pageSize) break;
        }
      } while (again && !closed);
      if (failing) logger.info('change feed: reading new events again');
      failing = false;
    } catch (err) {
      // The catalogue swapped, so there are events to read: try again shortly rather than at the next data version.
      if (!failing) logger.warn({ err: (err as Error).message }, 'change feed: cannot read new events; retrying');
      failing = true;
      clearTimeout(retry);
      if (!closed) retry = setTimeout(() => void readNew(), 1_000).unref();
    } finally {
      reading = false;
    }
  }
  store.onSwap(() => {
    if (!closed) void readNew();
  });

  const heartbeat = setInterval(() => {
    for (const follower of followers) follower.heartbeat();
  }, heartbeatMs);
  heartbeat.unref();

  return {
    position: () => position,
    follow: (options) => new Follower(hub, options),
    stats: () => ({
      open: { ...open },
      sent: { ...sent },
      cut: { ...cut },
      resets: { ...resets },
      position,
      reads,
      tail: tail.stats(),
    }),
    close() {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(retry);
      for (const follower of [...followers]) follower.end('closed');
    },
  };
}
