// The work a process takes on at once. Past capacity a request that waits for the event loop only makes
// every other one wait longer, and clients that time out come back as more requests: so at most `limit`
// computed answers are in progress; a request beyond them waits a short, bounded time for one to finish
// and is otherwise refused at once (503 with Retry-After) — "serve some users well rather than all users
// badly". What never waits here: finished answers from the cache and 304s (the gate answers them before),
// health, the metrics and event streams (the application says which, `shed`), and the plans' own lane
// (src/catalog/lane.ts) bounds the long searches apart from this.
import { problemResponse } from './problem.js';

export interface InFlightOptions {
  /** Computed answers in progress at once (MAX_IN_FLIGHT). */
  limit: number;
  /** How long a request beyond the limit may wait for a slot, in ms (QUEUE_WAIT_MS); 0: refused at once. */
  queueWaitMs: number;
  /** How many may wait at once; more are refused at once. Default: the limit. */
  queueMax?: number;
}

export type Refusal = 'full' | 'waited';

export interface InFlightFigures {
  inFlight: number;
  limit: number;
  waiting: number;
  admitted: number;
  refused: Record<Refusal, number>;
  /** Requests that waited for a slot, and their waits in total (seconds), since the start. */
  queued: number;
  queuedSeconds: number;
}

interface Waiter {
  since: number;
  admit(): void;
  timer: NodeJS.Timeout;
}

export class InFlight {
  readonly limit: number;
  readonly queueWaitMs: number;
  readonly queueMax: number;
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];
  private admitted = 0;
  private readonly refused: Record<Refusal, number> = { full: 0, waited: 0 };
  private queued = 0;
  private queuedSeconds = 0;

  constructor({ limit, queueWaitMs, queueMax = limit }: InFlightOptions) {
    this.limit = limit;
    this.queueWaitMs = queueWaitMs;
    this.queueMax = queueMax;
  }

  /**
   * A slot, taken now (true), after a wait (a promise of true), or refused (false, or a promise of false
   * once the wait is over). Every slot taken is given back with `leave`.
   */
  enter(): boolean | Promise<boolean> {
    if (this.inFlight < this.limit && this.waiters.length === 0) {
      this.inFlight++;
      this.admitted++;
      return true;
    }
    if (this.queueWaitMs <= 0 || this.waiters.length >= this.queueMax) {
      this.refused.full++;
      return false;
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        since: performance.now(),
        admit: () => resolve(true),
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          this.refused.waited++;
          this.wasQueued(waiter);
          resolve(false);
        }, this.queueWaitMs),
      };
      this.waiters.push(waiter);
    });
  }

  leave(): void {
    const next = this.waiters.shift();
    if (next) {
      // the slot passes to the longest waiting: inFlight stays
      clearTimeout(next.timer);
      this.admitted++;
      this.wasQueued(next);
      next.admit();
    } else this.inFlight--;
  }

  figures(): InFlightFigures {
    const { inFlight, limit, admitted, queued } = this;
    return {
      inFlight,
      limit,
      waiting: this.waiters.length,
      admitted,
      refused: { ...this.refused },
      queued,
      queuedSeconds: this.queuedSeconds,
    };
  }

  /** The answer to a request refused here. */
  refusal(): Response {
    return problemResponse(
      'SERVICE_UNAVAILABLE',
      `The service is answering as many requests as it can (${this.limit} at once in this process); ` +
        `please retry in ${RETRY_AFTER_SECONDS} s, or through another instance.`,
      undefined,
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    );
  }

  private wasQueued(waiter: Waiter): void {
    this.queued++;
    this.queuedSeconds += (performance.now() - waiter.since) / 1000;
  }
}

/** Seconds a refused client should wait: overload passes in seconds, and an immediate retry adds to it. */
export const RETRY_AFTER_SECONDS = 1;
