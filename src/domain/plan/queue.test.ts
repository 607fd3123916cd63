import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PriorityQueue } from './queue.js';

interface Entry {
  key: number;
  seq: number;
}
// larger keys first, then the newer: a strict total order, as the search's
const before = (x: Entry, y: Entry) => (x.key !== y.key ? x.key > y.key : x.seq > y.seq);

describe('PriorityQueue', () => {
  it('property: pushes and pops in any mix leave in the order of a sorted list', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: -20, max: 20 }), { nil: null }), { maxLength: 200 }), (ops) => {
        const queue = new PriorityQueue(before);
        const model: Entry[] = [];
        let seq = 0;
        for (const op of ops) {
          if (op === null) {
            model.sort((x, y) => (before(x, y) ? -1 : 1));
            expect(queue.pop()).toBe(model.shift());
          } else {
            const entry = { key: op, seq: seq++ };
            queue.push(entry);
            model.push(entry);
          }
          expect(queue.size).toBe(model.length);
          expect(new Set(queue.items())).toEqual(new Set(model));
        }
      }),
    );
  });

  it('pops undefined when empty', () => {
    const queue = new PriorityQueue<Entry>(before);
    expect(queue.pop()).toBeUndefined();
    queue.push({ key: 1, seq: 0 });
    expect(queue.pop()).toEqual({ key: 1, seq: 0 });
    expect(queue.pop()).toBeUndefined();
    expect(queue.size).toBe(0);
  });
});
