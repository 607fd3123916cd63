import { describe, expect, it } from 'vitest';
import { onePerTurn, turnByTurn } from './turns.js';

/** Counts the loop's turns (one immediate each) until stopped. */
function turnCounter() {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    now: () => turns,
    stop: () => {
      running = false;
    },
  };
}

describe('turnByTurn', () => {
  it('releases its callers one per turn of the loop, in the order they came', async () => {
    const turn = turnByTurn();
    const counter = turnCounter();
    const seen: [number, number][] = [];
    await Promise.all([0, 1, 2, 3].map((i) => turn().then(() => seen.push([i, counter.now()]))));
    counter.stop();
    expect(seen.map(([i]) => i)).toEqual([0, 1, 2, 3]);
    const turns = seen.map(([, t]) => t);
    // each in a turn of its own, one after the other
    for (let k = 1; k < turns.length; k++) expect(turns[k]).toBeGreaterThan(turns[k - 1]!);
  });

  it('lets a timer due meanwhile run between two callers', async () => {
    const turn = turnByTurn();
    const order: string[] = [];
    const first = turn().then(() => {
      order.push('first');
      // what falls due while the first is worked on (here a timer) goes before the second
      setTimeout(() => order.push('timer'), 0);
      const started = performance.now();
      while (performance.now() - started < 3);
    });
    const second = turn().then(() => order.push('second'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'timer', 'second']);
  });

  it('starts again after it has emptied', async () => {
    const turn = turnByTurn();
    await turn();
    await Promise.all([turn(), turn()]);
    await expect(turn()).resolves.toBeUndefined();
  });
});

describe('onePerTurn', () => {
  type OnParams = (payload: { params: { query?: string } }) => Promise<void> | undefined;
  it('holds a new document for its turn, and neither a prepared one nor a persisted query by its hash', async () => {
    const onParams = onePerTurn((document) => document === '{ known }').onParams as unknown as OnParams;
    expect(onParams({ params: { query: '{ known }' } })).toBeUndefined();
    expect(onParams({ params: {} })).toBeUndefined();
    const held = onParams({ params: { query: '{ new }' } });
    expect(held).toBeInstanceOf(Promise);
    await expect(held).resolves.toBeUndefined();
  });
});
