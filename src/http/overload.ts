// The work a process takes on at once. Past capacity a request that waits for the event loop only makes
// every other one wait longer, and clients that time out come back as more requests: so at most `limit`
// computed answers are in progress; a request beyond them waits a short, bounded time for one to finish
// and is otherwise refused at once (503 with Retry-After) — "serve some users well rather than all users
// badly". How many may wait depends on why they wait (as CoDel tells a good queue from a standing one): a
// burst (a few costly answers at once, a long turn of the loop) empties its queue within a fraction of a
// second, and up to `burstMax` wait it out, so that half the capacity is never refused; a queue that has
// not emptied for STANDING_MS, or that more than `burstMax` would join, is overload, and then only
// `queueMax` wait (each one more would wait longer and be as likely refused), until the queue has stayed
// empty for CALM_MS. The limit adapts to the latency the process gives (`adjust`, from the event loop's
// lag, as the gradient and Vegas algorithms do from round trips): it shrinks by a quarter when the loop
// lags beyond its target while the limit is reached, and grows by one when it does not lag, up to
// MAX_IN_FLIGHT.
// Its second signal is the answers' own time from admission to the end (`leave(ms)`): at the limit an
// answer takes the limit over the throughput (Little's law), so a mix of costly answers (exports, details,
// GraphQL pages) at the limit took 50–180 ms at the median in the soak while the loop never lagged beyond
// 50 ms; when their mean over a window passes its target the limit shrinks as it does for lag. Cheap answers
// keep the whole limit: sixteen clients asking cold lists are not turned away.
// What never waits here: finished answers from the cache and 304s (the gate answers them before),
// health, the metrics and event streams (the application says which, `shed`), and the plans' own lane
// (src/catalog/lane.ts) bounds the long searches apart from this.
import { problemResponse } from './problem.js';

export interface InFlightOptions {
  /** Computed answers in progress at once, at most (MAX_IN_FLIGHT); the limit starts there. */
  limit: number;
  /** The limit never adapts below this. */
  minLimit?: number;
  /** How long a request beyond the limit may wait for a slot, in ms (QUEUE_WAIT_MS); 0: refused at once. */
  queueWaitMs: number;
  /** How many may wait at once while the process is overloaded; more are refused at once. Default: twice the limit. */
  queueMax?: number;
  /** How many may wait at once in a burst (not overloaded). Default: six times the limit. */
  burstMax?: number;
  /** A queue not emptied for this long (ms) means overload (STANDING_MS); empty for calmMs (CALM_MS), it ends. */
  standingMs?: number;
  calmMs?: number;
  /** The mean time of an admitted answer (ms) beyond which the limit shrinks, as for lag; 0: not watched. */
  answerTimeTargetMs?: number;
}

export type Refusal = 'full' | 'waited';

/**
 * A queue that has not emptied for STANDING_MS is overload, not a burst: requests arrive faster than they
 * are answered. Longer than the bursts of half the capacity (a few costly answers at once, a long turn of
 * the loop: their waits reach 90 ms). Overload ends once the queue has stayed empty for CALM_MS.
 */
export const STANDING_MS = 250;
export const CALM_MS = 1_000;

export interface InFlightFigures {
  inFlight: number;
  /** The limit now, as adapted, and the most it may be. */
  limit: number;
  maxLimit: number;
  waiting: number;
  /** How many may wait now: burstMax, or queueMax while overloaded. */
  queueBound: number;
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
  readonly maxLimit: number;
  readonly minLimit: number;
  readonly queueWaitMs: number;
  readonly queueMax: number;
  readonly burstMax: number;
  readonly standingMs: number;
  readonly calmMs: number;
  readonly answerTimeTargetMs: number;
  private current: number;
  /**
   * Whether the queue is held to queueMax (overload) or may take a burst (burstMax); since when it has
   * been waiting without emptying, or empty (performance.now()).
   */
  private overloaded = false;
  private waitingSince: number | null = null;
  private emptySince = 0;
  /** The answers that ended in this window, and their times in total (ms). */
  private windowAnswers = 0;
  private windowMs = 0;
  /** Whether a request found every slot taken since the last adjustment. */
  private reached = false;
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];
  private admitted = 0;
  private readonly refused: Record<Refusal, number> = { full: 0, waited: 0 };
  private queued = 0;
  private queuedSeconds = 0;

  constructor({
    limit,
    minLimit = Math.min(limit, 2),
    queueWaitMs,
    queueMax = 2 * limit,
    burstMax = 6 * limit,
    answerTimeTargetMs = 0,
    standingMs = STANDING_MS,
    calmMs = CALM_MS,
  }: InFlightOptions) {
    this.burstMax = Math.max(burstMax, queueMax);
    this.standingMs = standingMs;
    this.calmMs = calmMs;
    this.answerTimeTargetMs = answerTimeTargetMs;
    this.maxLimit = limit;
    this.minLimit = minLimit;
    this.current = limit;
    this.queueWaitMs = queueWaitMs;
    this.queueMax = queueMax;
  }

  /**
   * A slot, taken now (true), after a wait (a promise of true), or refused (false, or a promise of false
   * once the wait is over). Every slot taken is given back with `leave`.
   */
  get limit(): number {
    return this.current;
  }

  /**
   * One window of the latency signal: the loop lagged beyond its target, or the answers that ended in it
   * took longer than theirs on average, while the limit was reached (it shrinks by a quarter); or neither
   * (it grows by one, back toward the most once the load has gone). Either while the limit was not reached
   * changes nothing: that is one long answer, not too many at once.
   */
  adjust(lagging: boolean): void {
    const slow =
      this.answerTimeTargetMs > 0 &&
      this.windowAnswers > 0 &&
      this.windowMs / this.windowAnswers > this.answerTimeTargetMs;
    const over = lagging || slow;
    if (over && this.reached) this.current = Math.max(this.minLimit, Math.floor(this.current * 0.75));
    else if (!over) this.current = Math.min(this.maxLimit, this.current + 1);
    this.reached = false;
    this.windowAnswers = 0;
    this.windowMs = 0;
    this.admitWaiting();
  }

  enter(): boolean | Promise<boolean> {
    if (this.inFlight < this.current && this.waiters.length === 0) {
      this.inFlight++;
      this.admitted++;
      return true;
    }
    this.reached = true;
    const now = performance.now();
    if (this.waitingSince !== null && now - this.waitingSince > this.standingMs) this.overloaded = true;
    else if (this.waitingSince === null && now - this.emptySince > this.calmMs) this.overloaded = false;
    if (this.queueWaitMs <= 0 || this.waiters.length >= this.queueBound) {
      // More than a burst's worth waiting is overload too, without waiting STANDING_MS to say so.
      if (this.waiters.length > 0) this.overloaded = true;
      this.refused.full++;
      return false;
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        since: now,
        admit: () => resolve(true),
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          this.refused.waited++;
          this.wasQueued(waiter);
          this.maybeEmptied();
          resolve(false);
        }, this.queueWaitMs),
      };
      if (this.waiters.length === 0) this.waitingSince = now;
      this.waiters.push(waiter);
    });
  }

  /** A slot given back; `ms`: how long its answer took since it was admitted (the second signal). */
  leave(ms?: number): void {
    if (ms !== undefined) {
      this.windowAnswers++;
      this.windowMs += ms;
    }
    this.inFlight--;
    this.admitWaiting();
  }

  figures(): InFlightFigures {
    const { inFlight, limit, maxLimit, admitted, queued } = this;
    return {
      inFlight,
      limit,
      maxLimit,
      waiting: this.waiters.length,
      queueBound: this.queueBound,
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
      `The service is answering as many requests as it can (${this.current} at once in this process); ` +
        `please retry in ${RETRY_AFTER_SECONDS} s, or through another instance.`,
      undefined,
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    );
  }

  /** Free slots go to the longest waiting. */
  private admitWaiting(): void {
    while (this.waiters.length > 0 && this.inFlight < this.current) {
      const next = this.waiters.shift()!;
      clearTimeout(next.timer);
      this.inFlight++;
      this.admitted++;
      this.wasQueued(next);
      next.admit();
    }
    this.maybeEmptied();
  }

  /** How many may wait now. */
  private get queueBound(): number {
    return this.overloaded ? this.queueMax : this.burstMax;
  }

  private maybeEmptied(): void {
    if (this.waiters.length > 0 || this.waitingSince === null) return;
    this.waitingSince = null;
    this.emptySince = performance.now();
  }

  private wasQueued(waiter: Waiter): void {
    this.queued++;
    this.queuedSeconds += (performance.now() - waiter.since) / 1000;
  }
}

/** Seconds a refused client should wait: overload passes in seconds, and an immediate retry adds to it. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The event loop's lag, watched: a timer due every `everyMs` measures how late it runs, and each window of
 * `windowMs` reports the most it lagged. Stopped with the function returned; it keeps no process alive.
 */
export function watchLag(report: (maxLagMs: number) => void, everyMs = 10, windowMs = 100): () => void {
  let expected = performance.now() + everyMs;
  let windowEnds = expected - everyMs + windowMs;
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - expected);
    expected = now + everyMs;
    if (now >= windowEnds) {
      report(worst);
      worst = 0;
      windowEnds = now + windowMs;
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
