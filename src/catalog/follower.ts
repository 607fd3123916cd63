// One client following changes (an SSE stream, a GraphQL subscription): a cursor into the feed's tail
// (change-tail.ts), pulled by its transport a batch at a time. It holds no events of its own beyond the
// batch it hands out, so a thousand followers, resuming or live, cost a thousand cursors.
//
// - Start: from now on (the feed's position); or after the id the client resumes from, when the tail
//   covers it (read once per process, shared); or, for an id older than the window, from now on with a
//   reset (the client re-reads the list). An id beyond the newest event in the database is refused.
// - Each batch: the events after the cursor that match the filter, in id order; each passed on once
//   (ids at or below the last passed on are skipped, so a repeat across instances cannot reach the client).
// - Before a batch is handed out, its connection must have room (see src/http/socket-backlog.ts): a client
//   that leaves what it was sent unread is given nothing more and, if it stays so, cut. A follower the
//   tail has moved past (it fell more than the window behind) is cut too: it resumes with a reset.
import { matchesChange, type ChangeFilter, type FeedEvent } from './changes.js';
import type { ChangeTail } from './change-tail.js';

export type Transport = 'sse' | 'graphql';
export const TRANSPORTS: readonly Transport[] = ['sse', 'graphql'];

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

/** A client asked to resume after an id no event has (yet): it would wait for ever. */
export class SinceAheadError extends Error {
  constructor(
    readonly since: number,
    readonly newest: number,
  ) {
    super(`event ${since} does not exist: the newest event is ${newest}`);
  }
}

/**
 * Why a follower ended: its reader stopped reading (returned), its client's connection closed (left),
 * shutdown (closed), too slow (slow: it left what it was sent unread, or fell behind the window).
 */
export type EndReason = 'returned' | 'left' | 'closed' | 'slow';

export interface FollowOptions {
  filter: ChangeFilter;
  /** Resume after this event id; null: from now on. */
  since: number | null;
  /** The client's address, for the per-client limit. */
  client: string;
  transport: Transport;
  /**
   * Whether the connection may be given more now (it may wait while the client reads); false: cut it.
   * Absent: always (no socket, as in tests driving the application without a port).
   */
  room?: () => Promise<boolean>;
  /** Called every heartbeat interval while it is open (SSE sends a comment, or its position). */
  onHeartbeat?: () => void;
  /** Called once when it ends for a reason other than its reader or client leaving. */
  onEnd?: (reason: Exclude<EndReason, 'returned' | 'left'>) => void;
}

export interface FollowerHub {
  tail: Pick<ChangeTail, 'covers' | 'reach' | 'indexAfter' | 'at'>;
  /** The id of the newest event the feed has read. */
  position(): number;
  /** The id of the newest event in the database (for an id the feed has not read yet). */
  newestInDatabase(): Promise<number>;
  register(follower: Follower): void;
  unregister(follower: Follower): void;
  counted(follower: Follower, sent: number): void;
  cut(follower: Follower): void;
  reset(follower: Follower): void;
}

/** How much one batch may hold: a transport writes it at once. */
export interface BatchLimit {
  events: number;
  bytes: number;
}

export const DEFAULT_BATCH: BatchLimit = { events: 100, bytes: 64 * 1024 };

export class Follower implements AsyncIterableIterator<FeedEvent> {
  /** The id the client is at once started: the one it resumes after, or the feed's position. */
  position = 0;
  /** It asked to resume from before the window and starts from now on: the client must re-read the list. */
  reset = false;
  ended: EndReason | null = null;
  /** The last id passed on to the client, or told it as its position. */
  private lastId = 0;
  /** The tail has been looked at up to this id. */
  private cursor = 0;
  private registered = false;
  private wake: (() => void) | null = null;
  private iterated: FeedEvent[] = [];

  constructor(
    private readonly hub: FollowerHub,
    readonly options: FollowOptions,
    private readonly batch: BatchLimit = DEFAULT_BATCH,
  ) {}

  get transport(): Transport {
    return this.options.transport;
  }

  /**
   * Registers with the feed (first: from then on what lands wakes it), then finds where it starts: a
   * limit, a shutdown, an id that does not exist or a database that does not answer is known before
   * anything is sent.
   */
  async start(): Promise<void> {
    this.hub.register(this);
    this.registered = true;
    try {
      this.position = await this.startingPoint();
    } catch (err) {
      this.end('returned');
      throw err;
    }
    this.lastId = this.cursor = this.position;
  }

  private async startingPoint(): Promise<number> {
    const { since } = this.options;
    const now = this.hub.position();
    if (since === null) return now;
    if (since > now) {
      // Another instance may have read it already (the client came from there): it comes here too.
      const newest = await this.hub.newestInDatabase();
      if (since > newest) throw new SinceAheadError(since, newest);
      return since;
    }
    if (await this.hub.tail.reach(since)) return since;
    this.reset = true;
    this.hub.reset(this);
    return this.hub.position();
  }

  /** From the feed: new events were appended to the tail. */
  arrived(events: readonly FeedEvent[]): void {
    if (this.ended || !this.wake) return; // not waiting: it looks at the tail when it next pulls
    if (events.some((e) => e.id > this.cursor && matchesChange(this.options.filter, e))) this.notify();
    else this.cursor = Math.max(this.cursor, events.at(-1)!.id); // nothing for it: it need not look again
  }

  heartbeat(): void {
    if (!this.ended) this.options.onHeartbeat?.();
  }

  /**
   * Its position, when the tail has moved past events its filter left out since it last passed one on,
   * and it is waiting for more (nothing in hand): the client may be told it, so that a reconnection
   * resumes from here rather than from before those. Null otherwise.
   */
  newPosition(): number | null {
    if (this.ended || !this.wake || this.cursor <= this.lastId) return null;
    this.lastId = this.cursor;
    return this.lastId;
  }

  /** The next events, at least one, in id order; null once it has ended. */
  async nextBatch(): Promise<FeedEvent[] | null> {
    for (;;) {
      if (this.ended) return null;
      if (!this.hub.tail.covers(this.cursor)) return this.slow(); // more than the window behind
      const batch = this.take();
      if (batch.length > 0) {
        if (this.options.room && !(await this.options.room())) return this.slow();
        if (this.ended) return null;
        this.hub.counted(this, batch.length);
        return batch;
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

  /** Ends it; for the feed (closed), a slow client, or the client or reader leaving. */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    this.iterated = [];
    if (this.registered) this.hub.unregister(this);
    this.registered = false;
    this.notify();
    if (reason !== 'returned' && reason !== 'left') this.options.onEnd?.(reason);
  }

  private slow(): null {
    this.hub.cut(this);
    this.end('slow');
    return null;
  }

  private notify() {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** The matching events after the cursor, up to the batch limit; the cursor moves past what it looked at. */
  private take(): FeedEvent[] {
    const { tail } = this.hub;
    const batch: FeedEvent[] = [];
    let bytes = 0;
    for (let i = tail.indexAfter(this.cursor); ; i++) {
      const e = tail.at(i);
      if (!e || batch.length >= this.batch.events || (batch.length > 0 && bytes + e.size > this.batch.bytes)) break;
      this.cursor = e.id;
      if (e.id <= this.lastId || !matchesChange(this.options.filter, e)) continue;
      batch.push(e);
      bytes += e.size;
      this.lastId = e.id;
    }
    return batch;
  }
}
