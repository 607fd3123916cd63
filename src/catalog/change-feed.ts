// The change feed: one publisher per process that pushes every new change event to whoever follows
// changes here (Server-Sent Events at /api/changes/stream, the GraphQL subscription `changes`).
//
// - Woken by the catalogue's swap (the reload signal: LISTEN/NOTIFY on PostgreSQL, the data-version
//   poll on the embedded database), it reads the events after the last one it has (`id > position`)
//   once per data version, whatever the number of followers, with what their impact needs, and hands
//   each follower the ones its filter matches, in memory. Every instance on the database does the
//   same, so an ingest made through any of them reaches the followers of all.
// - A follower that resumes (Last-Event-ID, since) first gets the matching events after its id from
//   the database, a page at a time, then live ones. The handover cannot lose or repeat an event: it
//   subscribes first (live batches are buffered meanwhile), then reads the backlog, then drains the
//   buffer; throughout it passes on only ids above the last one it passed on. Ids increase with ingest
//   order (changes.ts), so this is exact.
// - What a follower has not taken yet is bounded: a client still behind when new events come, whose
//   unsent events then pass the bound, is cut (it can resume, from the database, at its own pace),
//   instead of growing the process's memory.
// - At most so many followers per client address; on shutdown every follower is ended.
import type { PrismaClient } from '../db/client.js';
import type { DatabaseStatus } from '../db/status.js';
import type { Logger } from '../logger.js';
import {
  ANY_CHANGE,
  changesAfter,
  matchesChange,
  newestChangeId,
  type ChangeFilter,
  type ChangeItem,
} from './changes.js';
import { loadImpactBases, type ImpactBasis } from './impact-basis.js';
import type { CatalogStore } from './store.js';

export type Transport = 'sse' | 'graphql';
export const TRANSPORTS: readonly Transport[] = ['sse', 'graphql'];

export interface FeedEvent extends ChangeItem {
  /** What its impact is calculated from (rate events), read with it. */
  basis: ImpactBasis | null;
  /** About what it takes to send, for the bound on what a follower has not taken yet. */
  size: number;
}

/** More followers from one client than allowed. */
export class StreamLimitError extends Error {
  constructor(readonly max: number) {
    super(`at most ${max} open streams per client`);
  }
}

/** The feed is closed: the service is shutting down. */
export class FeedClosedError extends Error {
  constructor() {
    super('the service is shutting down');
  }
}

/**
 * Why a follower ended: its reader stopped reading (returned), its client's connection closed (left),
 * shutdown (closed), too slow (slow), or the database failed during its backlog (failed).
 */
export type EndReason = 'returned' | 'left' | 'closed' | 'slow' | 'failed';

export interface FollowOptions {
  filter: ChangeFilter;
  /** Resume after this event id; null: from now on. */
  since: number | null;
  /** The client's address, for the per-client limit. */
  client: string;
  transport: Transport;
  /** Called every heartbeat interval while it is open (SSE sends a comment). */
  onHeartbeat?: () => void;
  /** Called once when it ends for a reason other than the client leaving. */
  onEnd?: (reason: Exclude<EndReason, 'returned' | 'left'>) => void;
}

export interface FeedStats {
  /** Followers now, by transport. */
  open: Record<Transport, number>;
  /** Events handed to followers since start, by transport. */
  sent: Record<Transport, number>;
  /** Followers cut for reading too slowly, since start. */
  cut: Record<Transport, number>;
  /** The id of the newest event the feed has read. */
  position: number;
  /** Reads of new events (one per data version that brought events). */
  reads: number;
  /** Backlog pages read for resuming followers. */
  backlogReads: number;
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
  /** A follower whose untaken events pass this many bytes is cut. */
  maxBufferBytes: number;
  heartbeatMs: number;
  /** Events per database read (new events, backlog pages). */
  pageSize?: number;
}

const zero = (): Record<Transport, number> => ({ sse: 0, graphql: 0 });

/** What sending an event costs, roughly: its JSON (the text fields and what changed) and the frame around it. */
const sizeOf = (e: ChangeItem) =>
  256 + e.summary.length + (e.from ? JSON.stringify(e.from).length : 0) + (e.to ? JSON.stringify(e.to).length : 0);

/** Events read with what following them needs: their impact basis and their size. */
async function readEvents(
  prisma: PrismaClient,
  afterId: number,
  filter: ChangeFilter,
  limit: number,
): Promise<FeedEvent[]> {
  const items = await changesAfter(prisma, afterId, filter, limit);
  const bases = await loadImpactBases(prisma, items);
  return items.map((e) => ({ ...e, basis: bases.get(String(e.id)) ?? null, size: sizeOf(e) }));
}

export interface FollowerHub {
  maxBufferBytes: number;
  pageSize: number;
  position(): number;
  register(follower: Follower): void;
  unregister(follower: Follower): void;
  readBacklog(filter: ChangeFilter, afterId: number): Promise<FeedEvent[]>;
  counted(follower: Follower, sent: number): void;
  cut(follower: Follower): void;
}

/** One client following changes: a pull-based source of event batches, in id order, each event once. */
export class Follower implements AsyncIterableIterator<FeedEvent> {
  /** The id the client is at once started: the one it resumes after, or the feed's position. */
  position = 0;
  ended: EndReason | null = null;
  private lastId = 0;
  private registered = false;
  /** Events ready to be taken, in id order (ids at or below lastId are skipped when taken). */
  private queue: FeedEvent[] = [];
  /** Live events that came while the backlog was still being read. */
  private buffered: FeedEvent[] = [];
  private bytes = 0;
  private backlog = false;
  private wake: (() => void) | null = null;
  private iterated: FeedEvent[] = [];

  constructor(
    private readonly hub: FollowerHub,
    readonly options: FollowOptions,
  ) {}

  get transport(): Transport {
    return this.options.transport;
  }

  /**
   * Registers with the feed, then (when resuming) reads the first page of the backlog, so that a limit,
   * a shutdown or a database that does not answer is known before anything is sent.
   */
  async start(): Promise<void> {
    this.hub.register(this); // first: what lands from now on is buffered, not missed
    this.registered = true;
    const { since } = this.options;
    this.position = this.lastId = since ?? this.hub.position();
    if (since === null) return;
    this.backlog = true;
    try {
      await this.readPage();
    } catch (err) {
      this.end('returned');
      throw err;
    }
  }

  /**
   * From the feed: new events matching the filter. A follower that had taken everything before is not
   * cut for the size of one batch (a feed page at most); one that is still behind and passes the bound is.
   */
  deliver(events: readonly FeedEvent[]): void {
    if (this.ended) return;
    const behind = this.bytes > 0;
    (this.backlog ? this.buffered : this.queue).push(...events);
    for (const e of events) this.bytes += e.size;
    if (behind && this.bytes > this.hub.maxBufferBytes) {
      this.hub.cut(this);
      this.end('slow');
      return;
    }
    this.notify();
  }

  heartbeat(): void {
    if (!this.ended) this.options.onHeartbeat?.();
  }

  /** The next events, at least one, in id order; null once it has ended. */
  async nextBatch(): Promise<FeedEvent[] | null> {
    for (;;) {
      if (this.ended) return null;
      const batch = this.take();
      if (batch.length > 0) return batch;
      if (this.backlog) {
        try {
          await this.readPage();
        } catch {
          this.end('failed');
          return null;
        }
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async next(): Promise<IteratorResult<FeedEvent>> {
    if (this.iterated.length === 0) {
      const batch = await this.nextBatch();
      // A reader that called return() has stopped reading: a pending next() is left unanswered, since
      // answering it makes graphql-yoga write its `complete` into the stream it has just cancelled.
      if (!batch) return this.ended === 'returned' ? new Promise<never>(() => {}) : { done: true, value: undefined };
      this.iterated = batch;
    }
    return { done: false, value: this.iterated.shift()! };
  }

  async return(): Promise<IteratorResult<FeedEvent>> {
    this.end('returned');
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Ends it; for the feed (closed), the bound (slow), a failed backlog read or the client leaving. */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    this.queue = [];
    this.buffered = [];
    this.iterated = [];
    this.bytes = 0;
    if (this.registered) this.hub.unregister(this);
    this.registered = false;
    this.notify();
    if (reason !== 'returned' && reason !== 'left') this.options.onEnd?.(reason);
  }

  private notify() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private take(): FeedEvent[] {
    const batch: FeedEvent[] = [];
    for (const e of this.queue) {
      this.bytes -= e.size;
      if (e.id <= this.lastId) continue; // already passed on: from the backlog, or a repeat across instances
      batch.push(e);
      this.lastId = e.id;
    }
    this.queue = [];
    if (batch.length > 0) this.hub.counted(this, batch.length);
    return batch;
  }

  /** The next page of the backlog; the last one (short) hands over to the buffered live events. */
  private async readPage(): Promise<void> {
    const page = await this.hub.readBacklog(this.options.filter, this.lastId);
    if (this.ended) return;
    for (const e of page) this.bytes += e.size;
    this.queue.push(...page);
    if (page.length < this.hub.pageSize) {
      this.backlog = false;
      this.queue.push(...this.buffered);
      this.buffered = [];
    }
  }
}

export async function createChangeFeed({
  prisma,
  store,
  logger,
  database,
  maxPerClient,
  maxBufferBytes,
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
  let reads = 0;
  let backlogReads = 0;

  const hub: FollowerHub = {
    maxBufferBytes,
    pageSize,
    position: () => position,
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
    readBacklog(filter, afterId) {
      backlogReads++;
      return track(() => readEvents(prisma, afterId, filter, pageSize));
    },
    counted(follower, n) {
      sent[follower.transport] += n;
    },
    cut(follower) {
      cut[follower.transport]++;
      logger.warn(
        { client: follower.options.client, transport: follower.transport, maxBufferBytes },
        'a change stream read too slowly; cut',
      );
    },
  };

  function publish(events: FeedEvent[]) {
    position = events.at(-1)!.id;
    for (const follower of [...followers]) {
      const matching = events.filter((e) => matchesChange(follower.options.filter, e));
      if (matching.length > 0) follower.deliver(matching);
    }
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
          const events = await track(() => readEvents(prisma, position, ANY_CHANGE, pageSize));
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
    stats: () => ({ open: { ...open }, sent: { ...sent }, cut: { ...cut }, position, reads, backlogReads }),
    close() {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(retry);
      for (const follower of [...followers]) follower.end('closed');
    },
  };
}
