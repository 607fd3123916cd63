// The replay window against a simulated database: whatever the ids (increasing, with gaps), the window's
// size, where the process started and when new events are appended while older ones are being read,
// the tail covers exactly the positions among the newest `max` events, holds exactly the events after
// them, and one read of older events serves every follower that waited for it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChangeTail } from './change-tail.js';
import type { FeedEvent } from './changes.js';

const event = (id: number): FeedEvent => ({
  id,
  kind: 'rate_up',
  at: new Date(0),
  offerId: 'o',
  brandId: 'b',
  institutionId: 'i',
  summary: `event ${id}`,
  from: null,
  to: null,
  offerType: 'flexible',
  basis: null,
  size: 300,
});

/** Ids increasing with gaps, as a sequence leaves them after rolled-back transactions. */
const idsArb = fc
  .array(fc.integer({ min: 1, max: 4 }), { maxLength: 60 })
  .map((gaps) => gaps.reduce<number[]>((ids, gap) => [...ids, (ids.at(-1) ?? 0) + gap], []));

function database(ids: number[]) {
  let committed = 0; // how many of ids have committed
  const reads: number[] = [];
  return {
    ids,
    reads,
    commit(n: number) {
      committed = Math.min(ids.length, committed + n);
      return ids.slice(0, committed);
    },
    get committed() {
      return ids.slice(0, committed);
    },
    readOlder: async (atMost: number, limit: number) => {
      reads.push(atMost);
      await new Promise((resolve) => setImmediate(resolve));
      return ids
        .slice(0, committed)
        .filter((id) => id <= atMost)
        .reverse()
        .slice(0, limit)
        .map(event);
    },
  };
}

/** What the tail holds after an id, read back through its index. */
function after(tail: ChangeTail, afterId: number): number[] {
  const out: number[] = [];
  for (let i = tail.indexAfter(afterId), e = tail.at(i); e; e = tail.at(++i)) out.push(e.id);
  return out;
}

describe('ChangeTail', () => {
  it('covers exactly the newest max events, and holds every event after what it covers', async () => {
    await fc.assert(
      fc.asyncProperty(
        idsArb,
        fc.integer({ min: 1, max: 20 }),
        fc.nat(60),
        fc.nat(60),
        fc.integer({ min: 1, max: 7 }),
        fc.nat(70),
        async (ids, max, atStart, later, pageSize, asked) => {
          const db = database(ids);
          const started = db.commit(atStart);
          const tail = new ChangeTail(max, started.at(-1) ?? 0, db.readOlder, pageSize);
          const fresh = db.commit(later).slice(started.length);
          // New events come in while older ones are read (what that first answer is depends on the timing).
          const reaching = tail.reach(asked);
          tail.append(fresh.map(event));
          await reaching;
          const all = db.committed;
          // The window starts after the newest event that is not among the newest max (or at 0).
          const windowStart = all.length > max ? all[all.length - max - 1]! : 0;
          expect(await tail.reach(asked)).toBe(asked >= windowStart);
          if (asked >= windowStart) expect(after(tail, asked)).toEqual(all.filter((id) => id > asked));
          expect(tail.stats().events).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads older events once for every follower that waits for them, a page at a time', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => i + 1);
    const db = database(ids);
    db.commit(50);
    const tail = new ChangeTail(20, 50, db.readOlder, 8);
    const answers = await Promise.all(Array.from({ length: 100 }, () => tail.reach(35)));
    expect(answers.every(Boolean)).toBe(true);
    // 15 events after 35 in two pages of 8 (one more each: where the window starts): two reads, not two hundred.
    expect(db.reads).toEqual([50, 42]);
    expect(await tail.reach(29)).toBe(false); // beyond the newest 20: from 30 on only
    expect(tail.oldest).toBe(30);
    expect(db.reads).toHaveLength(3);
    expect(tail.stats()).toMatchObject({ events: 20, from: 30, loads: 3 });
  });

  it('drops the oldest events beyond max as new ones come', () => {
    const tail = new ChangeTail(3, 0, async () => [], 10);
    tail.append([1, 2].map(event));
    tail.append([4, 7, 9].map(event));
    expect(after(tail, 0)).toEqual([4, 7, 9]);
    // Every event after 2 is here (there is no 3): a client at 2 or 3 can resume, one at 1 cannot.
    expect(tail.covers(1)).toBe(false);
    expect([2, 3, 4].map((id) => tail.covers(id))).toEqual([true, true, true]);
    expect(tail.stats()).toMatchObject({ events: 3, bytes: 900, from: 2 });
  });
});
