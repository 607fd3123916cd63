// The newest change events, kept in memory once per process for every follower that resumes: the
// replay window. A client that reconnects with Last-Event-ID (or since) inside the window reads its
// missed events from here, filtering them itself, so a thousand clients resuming from one position
// cost one read of the window, not a thousand reads of their backlogs. A position older than the window
// is not replayed: the client is told to re-read the list (a reset), which costs nothing either.
//
// - The window is the newest `max` events. Live events are appended as the feed reads them; the oldest
//   drop off beyond `max`.
// - Older events are read only when a follower first asks for them (after a start, the window holds
//   only what was ingested since), in pages, one read at a time however many followers wait for it.
// - `from`: every event with an id above it, up to the newest appended, is here (ids increase with
//   ingest order, with gaps: "after from" is exact where "the last n ids" would not be).
import type { FeedEvent } from './changes.js';

/** The newest events with an id at most `atMost`, newest first, at most `limit` (with their impact basis). */
export type ReadOlder = (atMost: number, limit: number) => Promise<FeedEvent[]>;

export interface TailStats {
  /** Events kept. */
  events: number;
  /** About what they take to send (the sizes the bound on followers counts). */
  bytes: number;
  /** Every event after this id is kept. */
  from: number;
  /** Reads of older events (one per page, shared by every follower that waited for it). */
  loads: number;
}

export class ChangeTail {
  private events: FeedEvent[] = [];
  private bytes = 0;
  private loads = 0;
  private loading: Promise<void> | null = null;

  /**
   * @param from the newest id when the process started: what came after it is appended, what came before
   *   it is read when first asked for.
   */
  constructor(
    readonly max: number,
    private from: number,
    private readonly readOlder: ReadOlder,
    private readonly pageSize = 500,
  ) {}

  /** Whether every event after this id is here (up to the newest appended). */
  covers(afterId: number): boolean {
    return afterId >= this.from;
  }

  /** The oldest id a follower may resume after (older ones get a reset), once the window is read. */
  get oldest(): number {
    return this.from;
  }

  /** New events, in id order, after every event here. */
  append(events: readonly FeedEvent[]): void {
    for (const e of events) {
      this.events.push(e);
      this.bytes += e.size;
    }
    this.trim();
  }

  /**
   * Reads older events until the tail covers `afterId` or holds the whole window; whether it covers it.
   * Concurrent callers share each read.
   */
  async reach(afterId: number): Promise<boolean> {
    while (!this.covers(afterId) && !this.full()) {
      this.loading ??= this.loadOlder().finally(() => (this.loading = null));
      await this.loading;
    }
    return this.covers(afterId);
  }

  /** The events after an id, in id order, from `start` on: the index of the first, for a follower's scan. */
  indexAfter(afterId: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  at(index: number): FeedEvent | undefined {
    return this.events[index];
  }

  stats(): TailStats {
    return { events: this.events.length, bytes: this.bytes, from: this.from, loads: this.loads };
  }

  /** Nothing older is kept: the window is full, or it holds every event there is. */
  private full(): boolean {
    return this.events.length >= this.max || this.from === 0;
  }

  private async loadOlder(): Promise<void> {
    const from = this.from;
    const wanted = Math.min(this.max - this.events.length, this.pageSize);
    // One more than wanted: the newest one not kept is where the window starts.
    const older = await this.readOlder(from, wanted + 1);
    this.loads++;
    // New events pushed the oldest out meanwhile: the window is full, and what was read is older than it.
    if (this.from !== from) return;
    const kept = older.slice(0, wanted).reverse();
    this.from = older.length > wanted ? older[wanted]!.id : 0;
    for (const e of kept) this.bytes += e.size;
    this.events = [...kept, ...this.events];
    this.trim();
  }

  private trim(): void {
    const over = this.events.length - this.max;
    if (over <= 0) return;
    for (let i = 0; i < over; i++) this.bytes -= this.events[i]!.size;
    this.from = this.events[over - 1]!.id;
    this.events = this.events.slice(over);
  }
}
