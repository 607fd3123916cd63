// A follower against a simulated database and feed whose steps interleave in every order fast-check
// finds: events commit, the feed appends what has committed to the tail, the tail's reads of older
// events answer some time later, the client takes what it is given. Whatever the order, the client
// gets every event after its starting point exactly once, in order; a client that resumes from before
// the window starts from the feed's position with a reset; one that falls behind the window is cut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANY_CHANGE, type ChangeFilter } from './changes.js';
import type { FeedEvent } from './changes.js';
import { ChangeTail } from './change-tail.js';
import { Follower, SinceAheadError, type FollowerHub } from './follower.js';

const event = (id: number, kind: FeedEvent['kind'] = 'rate_up'): FeedEvent => ({
  id,
  kind,
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

type Step = 'commit' | 'deliver' | 'answer' | 'take';

interface Simulation {
  hub: FollowerHub;
  tail: ChangeTail;
  committed: number;
  delivered: number;
  answers: (() => void)[];
  registered: Follower[];
  cut: number;
  resets: number;
}

function simulate(committed: number, delivered: number, max: number, pageSize = 3): Simulation {
  const sim: Simulation = {
    committed,
    delivered,
    answers: [],
    registered: [],
    cut: 0,
    resets: 0,
    tail: new ChangeTail(
      max,
      delivered,
      (atMost, limit) =>
        // Answered at a later step: events commit and are appended meanwhile.
        new Promise((resolve) =>
          sim.answers.push(() =>
            resolve(
              Array.from({ length: Math.min(atMost, sim.committed) }, (_, i) => Math.min(atMost, sim.committed) - i)
                .slice(0, limit)
                .map((id) => event(id)),
            ),
          ),
        ),
      pageSize,
    ),
    hub: {
      get tail() {
        return sim.tail;
      },
      position: () => sim.delivered,
      newestInDatabase: async () => sim.committed,
      register: (f) => void sim.registered.push(f),
      unregister: (f) => void sim.registered.splice(sim.registered.indexOf(f), 1),
      counted: () => {},
      cut: () => void sim.cut++,
      reset: () => void sim.resets++,
    },
  };
  return sim;
}

function deliver(sim: Simulation): void {
  if (sim.delivered >= sim.committed) return;
  const batch = Array.from({ length: sim.committed - sim.delivered }, (_, i) => event(sim.delivered + i + 1));
  sim.delivered = sim.committed;
  sim.tail.append(batch);
  for (const f of [...sim.registered]) f.arrived(batch);
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('Follower', () => {
  it('passes on every event after its start exactly once, in order, whatever the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          total: fc.integer({ min: 1, max: 30 }),
          committed: fc.integer({ min: 0, max: 30 }),
          lag: fc.integer({ min: 0, max: 30 }),
          since: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
          max: fc.integer({ min: 1, max: 40 }),
          steps: fc.array(fc.constantFrom<Step>('commit', 'deliver', 'answer', 'take'), { maxLength: 120 }),
        }),
        async ({ total, committed, lag, since, max, steps }) => {
          const initialCommitted = Math.min(committed, total);
          const initialDelivered = Math.max(0, initialCommitted - lag);
          // A client resumes from an id it was given: one that has committed (maybe not read by this instance).
          const resumeAfter = since === null ? null : Math.min(since, initialCommitted);
          const sim = simulate(initialCommitted, initialDelivered, max);
          const follower = new Follower(sim.hub, {
            filter: ANY_CHANGE,
            since: resumeAfter,
            client: 'c',
            transport: 'sse',
          });
          let started = false;
          const starting = follower.start().then(() => (started = true));
          const received: number[] = [];
          let taking: Promise<void> | null = null;
          const run = async (what: Step) => {
            if (what === 'commit') sim.committed = Math.min(total, sim.committed + 1);
            if (what === 'deliver') deliver(sim);
            if (what === 'answer') sim.answers.shift()?.();
            if (what === 'take' && started)
              taking ??= follower.nextBatch().then((batch) => {
                received.push(...(batch ?? []).map((e) => e.id));
                taking = null;
              });
            await flush();
          };
          for (const what of steps) await run(what);
          // Then everything commits and is appended, and the client reads to the end (or is cut).
          for (let guard = 0; guard < 10 * total + 50 && !follower.ended && (received.at(-1) ?? 0) < total; guard++)
            for (const what of ['commit', 'deliver', 'answer', 'take'] as const) await run(what);
          await starting;
          const start = follower.position;
          const expected = Array.from({ length: total - start }, (_, i) => start + i + 1);
          if (follower.ended === 'slow') {
            // Fell behind the window: what it got is a beginning of the rest, each once, in order.
            expect(expected.slice(0, received.length)).toEqual(received);
            expect(sim.cut).toBe(1);
          } else expect(received).toEqual(expected);
          // A reset is exactly a resume from before the window: from the feed's position then.
          if (follower.reset) expect(resumeAfter).not.toBeNull();
          else if (resumeAfter !== null) expect(start).toBe(resumeAfter);
          expect(sim.resets).toBe(follower.reset ? 1 : 0);
          await follower.return();
          expect(sim.registered).toHaveLength(0);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('resumes inside the window without a reset, and from before it with one, at the position', async () => {
    const sim = simulate(30, 30, 10, 20);
    const inside = new Follower(sim.hub, { filter: ANY_CHANGE, since: 22, client: 'c', transport: 'sse' });
    const starting = inside.start();
    await flush();
    sim.answers.shift()!(); // the window, read once
    await starting;
    expect(inside.reset).toBe(false);
    expect((await inside.nextBatch())!.map((e) => e.id)).toEqual([23, 24, 25, 26, 27, 28, 29, 30]);
    const before = new Follower(sim.hub, { filter: ANY_CHANGE, since: 12, client: 'c', transport: 'sse' });
    await before.start(); // the window is read: no read
    expect(sim.answers).toHaveLength(0);
    expect([before.reset, before.position]).toEqual([true, 30]);
    expect(sim.resets).toBe(1);
  });

  it('refuses an id beyond the newest event in the database, and waits for one the feed has not read yet', async () => {
    const sim = simulate(12, 10, 10);
    const ahead = new Follower(sim.hub, { filter: ANY_CHANGE, since: 13, client: 'c', transport: 'sse' });
    await expect(ahead.start()).rejects.toBeInstanceOf(SinceAheadError);
    expect(sim.registered).toHaveLength(0);
    const early = new Follower(sim.hub, { filter: ANY_CHANGE, since: 12, client: 'c', transport: 'sse' });
    await early.start();
    const next = early.nextBatch();
    deliver(sim); // 11 and 12: already seen by the client
    sim.committed = 13;
    deliver(sim);
    expect((await next)!.map((e) => e.id)).toEqual([13]);
  });

  it('waits for room on its connection, and is cut when there is none', async () => {
    const sim = simulate(0, 0, 10);
    const ended: string[] = [];
    let room = true;
    const follower = new Follower(sim.hub, {
      filter: ANY_CHANGE,
      since: null,
      client: 'c',
      transport: 'sse',
      room: async () => room,
      onEnd: (reason) => ended.push(reason),
    });
    await follower.start();
    sim.committed = 2;
    deliver(sim);
    expect((await follower.nextBatch())!.map((e) => e.id)).toEqual([1, 2]);
    room = false;
    sim.committed = 3;
    deliver(sim);
    expect(await follower.nextBatch()).toBeNull();
    expect([follower.ended, ended, sim.cut, sim.registered.length]).toEqual(['slow', ['slow'], 1, 0]);
  });

  it('tells a waiting client whose filter left events out its new position, and only then', async () => {
    const sim = simulate(0, 0, 10);
    const filter: ChangeFilter = { ...ANY_CHANGE, kinds: new Set(['rate_down']) };
    const follower = new Follower(sim.hub, { filter, since: null, client: 'c', transport: 'sse' });
    await follower.start();
    const waiting = follower.nextBatch();
    await flush();
    expect(follower.newPosition()).toBeNull();
    sim.committed = 3;
    deliver(sim); // three rate_up: none for it
    expect(follower.newPosition()).toBe(3);
    expect(follower.newPosition()).toBeNull(); // told once
    sim.tail.append([event(4, 'rate_down')]);
    sim.delivered = sim.committed = 4;
    for (const f of sim.registered) f.arrived([event(4, 'rate_down')]);
    expect((await waiting)!.map((e) => e.id)).toEqual([4]);
  });

  it('ends, and wakes a waiting reader, when the feed closes', async () => {
    const sim = simulate(0, 0, 10);
    const follower = new Follower(sim.hub, { filter: ANY_CHANGE, since: null, client: 'c', transport: 'graphql' });
    await follower.start();
    const waiting = follower.nextBatch();
    follower.end('closed');
    expect(await waiting).toBeNull();
    expect(follower.ended).toBe('closed');
  });
});
