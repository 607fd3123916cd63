import { describe, expect, it } from 'vitest';
import { InFlight, watchLag } from './overload.js';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('InFlight', () => {
  it('admits up to its limit at once, then refuses at once when there is no queue', () => {
    const bound = new InFlight({ limit: 2, queueWaitMs: 0 });
    expect([bound.enter(), bound.enter(), bound.enter()]).toEqual([true, true, false]);
    bound.leave();
    expect(bound.enter()).toBe(true);
    expect(bound.figures()).toMatchObject({ inFlight: 2, admitted: 3, refused: { full: 1, waited: 0 } });
  });

  it('gives a freed slot to the longest waiting, in order, without going over the limit', async () => {
    const bound = new InFlight({ limit: 1, queueWaitMs: 1_000, queueMax: 2 });
    expect(bound.enter()).toBe(true);
    const order: string[] = [];
    const a = (bound.enter() as Promise<boolean>).then((ok) => order.push(`a:${ok}`));
    const b = (bound.enter() as Promise<boolean>).then((ok) => order.push(`b:${ok}`));
    expect(bound.figures()).toMatchObject({ inFlight: 1, waiting: 2 });
    bound.leave();
    await a;
    expect(bound.figures()).toMatchObject({ inFlight: 1, waiting: 1 });
    bound.leave();
    await b;
    bound.leave();
    expect(order).toEqual(['a:true', 'b:true']);
    expect(bound.figures()).toMatchObject({ inFlight: 0, waiting: 0, admitted: 3, queued: 2 });
  });

  it('refuses a waiting request once its wait is over, and one beyond the queue at once', async () => {
    const bound = new InFlight({ limit: 1, queueWaitMs: 30, queueMax: 1, burstMax: 1 });
    expect(bound.enter()).toBe(true);
    const waiting = bound.enter();
    expect(bound.enter()).toBe(false);
    const asked = performance.now();
    await expect(waiting).resolves.toBe(false);
    expect(performance.now() - asked).toBeGreaterThanOrEqual(25);
    expect(bound.figures()).toMatchObject({ inFlight: 1, waiting: 0, refused: { full: 1, waited: 1 }, queued: 1 });
    // the slot taken before is still given back as it should be
    bound.leave();
    await later(1);
    expect(bound.figures().inFlight).toBe(0);
  });

  it('lets a burst wait beyond the queue of overload; more than a burst is overload at once', async () => {
    const bound = new InFlight({ limit: 1, queueWaitMs: 5_000, queueMax: 1, burstMax: 3 });
    expect(bound.enter()).toBe(true);
    const burst = [bound.enter(), bound.enter(), bound.enter()];
    expect(burst.every((e) => e instanceof Promise)).toBe(true);
    expect(bound.figures()).toMatchObject({ waiting: 3, queueBound: 3 });
    expect(bound.enter()).toBe(false); // beyond the burst's bound: overload from now on
    expect(bound.figures()).toMatchObject({ waiting: 3, queueBound: 1, refused: { full: 1 } });
    bound.leave();
    await burst[0];
    expect(bound.enter()).toBe(false); // two wait, the queue of overload holds one
    for (const b of burst.slice(1)) {
      bound.leave();
      await expect(b).resolves.toBe(true);
    }
    // emptied, but not yet for calmMs: still overload, one may wait
    const one = bound.enter();
    expect(one).toBeInstanceOf(Promise);
    expect(bound.enter()).toBe(false);
    bound.leave();
    await expect(one).resolves.toBe(true);
    bound.leave();
    expect(bound.figures()).toMatchObject({ inFlight: 0, waiting: 0, admitted: 5, refused: { full: 3, waited: 0 } });
  });

  it('counts a queue that has not emptied for standingMs as overload', async () => {
    const bound = new InFlight({ limit: 1, queueWaitMs: 5_000, queueMax: 1, burstMax: 3, standingMs: 40 });
    expect(bound.enter()).toBe(true);
    const waiting = [bound.enter(), bound.enter()];
    expect(bound.figures()).toMatchObject({ waiting: 2, queueBound: 3 });
    await later(50);
    // room for a third in a burst, but the queue has stood longer than standingMs
    expect(bound.enter()).toBe(false);
    expect(bound.figures()).toMatchObject({ waiting: 2, queueBound: 1, refused: { full: 1 } });
    for (const w of waiting) {
      bound.leave();
      await expect(w).resolves.toBe(true);
    }
    bound.leave();
  });

  it('takes bursts again once the queue has stayed empty for calmMs', async () => {
    const bound = new InFlight({ limit: 1, queueWaitMs: 5_000, queueMax: 1, burstMax: 3, standingMs: 20, calmMs: 40 });
    expect(bound.enter()).toBe(true);
    const waiting = bound.enter();
    await later(30);
    expect(bound.enter()).toBe(false); // standing: overload, and the queue of one is full
    bound.leave();
    await waiting;
    bound.leave();
    expect(bound.figures()).toMatchObject({ inFlight: 0, waiting: 0, queueBound: 1 });
    await later(50);
    expect(bound.enter()).toBe(true);
    const burst = [bound.enter(), bound.enter(), bound.enter()];
    expect(burst.every((e) => e instanceof Promise)).toBe(true);
    expect(bound.figures()).toMatchObject({ waiting: 3, queueBound: 3 });
    for (const b of burst) {
      bound.leave();
      await b;
    }
    bound.leave();
  });

  it('answers a refusal as problem+json with Retry-After', async () => {
    const response = new InFlight({ limit: 3, queueWaitMs: 0 }).refusal();
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await response.json()).detail).toMatch(/3 at once/);
  });
});

describe('InFlight: the adaptive limit', () => {
  it('shrinks by a quarter while the loop lags and it is reached, down to its floor; grows by one without lag', () => {
    const bound = new InFlight({ limit: 16, minLimit: 2, queueWaitMs: 0 });
    const limits: number[] = [];
    // a window in which the limit was not reached: the lag is one long answer, no reason to shrink
    bound.adjust(true);
    expect(bound.limit).toBe(16);
    const fill = () => {
      while (bound.enter() === true); // every slot taken, and one more refused: the limit was reached
    };
    for (let i = 0; i < 8; i++) {
      fill();
      bound.adjust(true);
      limits.push(bound.limit);
    }
    expect(limits).toEqual([12, 9, 6, 4, 3, 2, 2, 2]);
    // no lag: one more each window, whether reached or not (the load may have gone), up to the most
    bound.adjust(false);
    expect(bound.limit).toBe(3);
    for (let i = 0; i < 10; i++) {
      fill();
      bound.adjust(false);
    }
    expect(bound.limit).toBe(13);
    for (let i = 0; i < 16; i++) bound.leave();
    for (let i = 0; i < 10; i++) bound.adjust(false);
    expect(bound.limit).toBe(16);
    expect(bound.figures()).toMatchObject({ limit: 16, maxLimit: 16 });
  });

  it('shrinks when the answers that ended took longer than their target on average, at the limit only', () => {
    const bound = new InFlight({ limit: 8, minLimit: 2, queueWaitMs: 0, answerTimeTargetMs: 50 });
    const fill = () => {
      while (bound.enter() === true);
    };
    // slow answers while the limit was not reached: one long answer, nothing to shrink
    bound.enter();
    bound.leave(400);
    bound.adjust(false);
    expect(bound.limit).toBe(8);
    // at the limit: answers of 30 and 90 ms (mean 60) shrink it; the lag's signal is not needed
    fill();
    bound.leave(30);
    bound.leave(90);
    bound.adjust(false);
    expect(bound.limit).toBe(6);
    // the window starts afresh: answers of 20 and 40 ms (mean 30) at the limit let it grow
    fill();
    bound.leave(20);
    bound.leave(40);
    bound.adjust(false);
    expect(bound.limit).toBe(7);
    // a window in which no answer ended says nothing about their time
    fill();
    bound.adjust(false);
    expect(bound.limit).toBe(8);
    // not watched (0): the same slow answers change nothing
    const unwatched = new InFlight({ limit: 8, queueWaitMs: 0 });
    while (unwatched.enter() === true);
    unwatched.leave(500);
    unwatched.adjust(false);
    expect(unwatched.limit).toBe(8);
  });

  it('admits those waiting when it grows, and holds new ones back while above it after shrinking', async () => {
    const bound = new InFlight({ limit: 4, minLimit: 1, queueWaitMs: 1_000, queueMax: 8 });
    expect([bound.enter(), bound.enter(), bound.enter(), bound.enter()]).toEqual([true, true, true, true]);
    const first = bound.enter(); // the limit is reached: it waits
    bound.adjust(true); // lagging while reached: 3, with 4 in progress
    expect(bound.limit).toBe(3);
    bound.leave(); // 3 in progress: still no room under 3
    expect(bound.figures()).toMatchObject({ inFlight: 3, waiting: 1 });
    bound.leave(); // 2: the one waiting gets its slot
    await expect(first).resolves.toBe(true);
    const second = bound.enter(); // 3 in progress: it waits, and the limit was reached
    expect(second).toBeInstanceOf(Promise);
    bound.adjust(false); // no lag while reached: 4, and the one waiting gets its slot at once
    await expect(second).resolves.toBe(true);
    expect(bound.figures()).toMatchObject({ inFlight: 4, limit: 4, waiting: 0 });
  });
});

describe('watchLag', () => {
  it('reports the most the loop lagged in each window', async () => {
    const windows: number[] = [];
    const stop = watchLag((lag) => windows.push(lag), 5, 50);
    await later(120);
    const blockedUntil = performance.now() + 80;
    while (performance.now() < blockedUntil);
    await later(120);
    stop();
    expect(windows.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...windows)).toBeGreaterThanOrEqual(70);
    expect(Math.min(...windows)).toBeLessThan(40);
  });
});
