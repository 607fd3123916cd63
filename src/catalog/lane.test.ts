import { describe, expect, it } from 'vitest';
import { CpuLane, LaneFull } from './lane.js';

/** A task that spins for `ms` milliseconds per step, `steps` times, then returns its name. */
function* spinning(name: string, steps: number, ms: number, log?: string[]): Generator<void, string, void> {
  for (let i = 0; i < steps; i++) {
    const until = performance.now() + ms;
    while (performance.now() < until);
    log?.push(name);
    yield;
  }
  return name;
}

describe('CpuLane', () => {
  it('gives each task its value, as running it through would', async () => {
    const lane = new CpuLane(2, 4);
    await expect(Promise.all([lane.run(spinning('a', 5, 1)), lane.run(spinning('b', 3, 1))])).resolves.toEqual([
      'a',
      'b',
    ]);
    expect(lane.figures()).toMatchObject({ running: 0, refused: 0, abandoned: 0 });
  });

  it('lets the event loop answer between slices: a timer set during 200 ms of work fires within a few ms', async () => {
    const lane = new CpuLane(4, 4);
    const work = lane.run(spinning('long', 100, 2));
    const lags: number[] = [];
    for (let i = 0; i < 10; i++) {
      const asked = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 0));
      lags.push(performance.now() - asked);
    }
    await work;
    // A slice is 4 ms and a step 2 ms: a timer waits for one slice at most, not for the whole task.
    expect(Math.max(...lags)).toBeLessThan(40);
  });

  it('takes turns: two tasks interleave rather than one running to its end first', async () => {
    const lane = new CpuLane(1, 4);
    const log: string[] = [];
    await Promise.all([lane.run(spinning('a', 6, 1, log)), lane.run(spinning('b', 6, 1, log))]);
    expect(log.indexOf('b')).toBeLessThan(log.lastIndexOf('a'));
  });

  it('oldest first: finishes tasks in the order they came, and still lets a timer through between slices', async () => {
    const lane = new CpuLane(1, 4, 'oldest-first');
    const log: string[] = [];
    let firedAfter = -1;
    setTimeout(() => (firedAfter = log.length), 0);
    await Promise.all([lane.run(spinning('a', 20, 1, log)), lane.run(spinning('b', 6, 1, log))]);
    expect(log.lastIndexOf('a')).toBeLessThan(log.indexOf('b'));
    expect(firedAfter).toBeGreaterThanOrEqual(0);
    expect(firedAfter).toBeLessThan(log.length); // while the tasks ran, not after them
  });

  it('stops a task whose signal aborts within one slice, and rejects with its reason', async () => {
    const lane = new CpuLane(4, 4);
    const controller = new AbortController();
    const log: string[] = [];
    const work = lane.run(spinning('x', 10_000, 1, log), controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const at = log.length;
    controller.abort(new Error('client went'));
    await expect(work).rejects.toThrow('client went');
    // at most the slice that was running when it aborted
    expect(log.length - at).toBeLessThanOrEqual(5);
    expect(lane.figures()).toMatchObject({ running: 0, abandoned: 1 });
  });

  it('refuses at once a task beyond its capacity, and counts it', async () => {
    const lane = new CpuLane(2, 2);
    const running = [lane.run(spinning('a', 20, 1)), lane.run(spinning('b', 20, 1))];
    await expect(lane.run(spinning('c', 1, 0))).rejects.toBeInstanceOf(LaneFull);
    expect(lane.figures()).toMatchObject({ running: 2, capacity: 2, refused: 1 });
    await Promise.all(running);
    await expect(lane.run(spinning('d', 1, 0))).resolves.toBe('d');
  });

  it('rejects a task whose step throws, and goes on with the others', async () => {
    const lane = new CpuLane(2, 4);
    function* failing(): Generator<void, never, void> {
      yield;
      throw new Error('broken');
    }
    const [bad, good] = await Promise.allSettled([lane.run(failing()), lane.run(spinning('ok', 3, 0))]);
    expect(bad).toMatchObject({ status: 'rejected', reason: new Error('broken') });
    expect(good).toMatchObject({ status: 'fulfilled', value: 'ok' });
  });
});
