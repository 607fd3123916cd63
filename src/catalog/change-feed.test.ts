// The follower's handover from the backlog (read from the database) to live events (pushed by the
// feed), against a simulated database and feed whose steps interleave in every order fast-check finds:
// events commit, the feed delivers what has committed, a backlog read sees what has committed when it
// runs and answers some time later (events can commit and be delivered in between), the client takes
// what it is given. Whatever the order, the client gets every event after its
// starting point exactly once, in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANY_CHANGE } from './changes.js';
import { Follower, type FeedEvent, type FollowerHub } from './change-feed.js';

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

type Step = 'commit' | 'deliver' | 'read' | 'answer' | 'take';

interface Simulation {
  hub: FollowerHub;
  committed: number;
  delivered: number;
  /** Backlog reads not run yet, and run but not answered yet. */
  reads: { afterId: number; resolve: (events: FeedEvent[]) => void }[];
  answers: (() => void)[];
  registered: Follower[];
}

function simulate(
  initialCommitted: number,
  initialDelivered: number,
  pageSize: number,
  maxBufferBytes = Infinity,
): Simulation {
  const sim: Simulation = {
    committed: initialCommitted,
    delivered: initialDelivered,
    reads: [],
    answers: [],
    registered: [],
    hub: {
      maxBufferBytes,
      pageSize,
      position: () => sim.delivered,
      register: (f) => void sim.registered.push(f),
      unregister: (f) => void sim.registered.splice(sim.registered.indexOf(f), 1),
      readBacklog: (_filter, afterId) => new Promise((resolve) => sim.reads.push({ afterId, resolve })),
      counted: () => {},
      cut: () => {},
    },
  };
  return sim;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

function step(sim: Simulation, what: Step, total: number): void {
  if (what === 'commit') sim.committed = Math.min(total, sim.committed + 1);
  if (what === 'deliver' && sim.delivered < sim.committed) {
    const batch = Array.from({ length: sim.committed - sim.delivered }, (_, i) => event(sim.delivered + i + 1));
    sim.delivered = sim.committed;
    for (const f of sim.registered) f.deliver(batch);
  }
  if (what === 'read') {
    const read = sim.reads.shift();
    if (read) {
      const from = read.afterId + 1;
      const to = Math.min(sim.committed, read.afterId + sim.hub.pageSize);
      const page = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => event(from + i));
      sim.answers.push(() => read.resolve(page));
    }
  }
  if (what === 'answer') sim.answers.shift()?.();
}

describe('Follower', () => {
  it(
    'hands over from the backlog to live events without ' + 'losing or repeating one, whatever the interleaving',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            total: fc.integer({ min: 1, max: 30 }),
            committed: fc.integer({ min: 0, max: 30 }),
            lag: fc.integer({ min: 0, max: 30 }),
            since: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
            pageSize: fc.integer({ min: 1, max: 6 }),
            steps: fc.array(fc.constantFrom<Step>('commit', 'deliver', 'read', 'answer', 'take'), { maxLength: 120 }),
          }),
          async ({ total, committed, lag, since, pageSize, steps }) => {
            const initialCommitted = Math.min(committed, total);
            const initialDelivered = Math.max(0, initialCommitted - lag);
            // A client resumes from an id it was given: one that has committed (possibly not yet read by this
            // instance).
            const resumeAfter = since === null ? null : Math.min(since, initialCommitted);
            const sim = simulate(initialCommitted, initialDelivered, pageSize);
            const follower = new Follower(sim.hub, {
              filter: ANY_CHANGE,
              since: resumeAfter,
              client: 'c',
              transport: 'sse',
            });
            const started = follower.start();
            const received: number[] = [];
            let _taking: Promise<void> | null = null;
            const take = () => {
              _taking ??= follower.nextBatch().then((batch) => {
                received.push(...(batch ?? []).map((e) => e.id));
                _taking = null;
              });
            };
            // start() reads the first backlog page before it returns.
            const run = async (what: Step) => {
              if (what === 'take') {
                if (startedDone) take();
              } else step(sim, what, total);
              await flush();
            };
            let startedDone = false;
            void started.then(() => (startedDone = true));
            for (const what of steps) await run(what);
            // Then everything commits and is delivered, and the client reads to the end.
            for (let guard = 0; guard < 10 * total + 50 && (received.at(-1) ?? 0) < total; guard++) {
              for (const what of ['commit', 'deliver', 'read', 'answer', 'take'] as const) await run(what);
            }
            const start = resumeAfter ?? initialDelivered;
            expect(received).toEqual(Array.from({ length: total - start }, (_, i) => start + i + 1));
            await follower.return();
            expect(sim.registered).toHaveLength(0);
          },
        ),
        { numRuns: 400 },
      );
    },
  );

  it('is cut, and unregistered, when what it has not taken passes the bound', async () => {
    const sim = simulate(0, 0, 10, 1_000);
    const ended: string[] = [];
    const follower = new Follower(sim.hub, {
      filter: ANY_CHANGE,
      since: null,
      client: 'c',
      transport: 'sse',
      onEnd: (reason) => ended.push(reason),
    });
    await follower.start();
    follower.deliver([event(1), event(2), event(3)]); // 900 bytes: kept
    expect(follower.ended).toBeNull();
    follower.deliver([event(4)]); // 1,200, while it has not taken the first three
    expect(follower.ended).toBe('slow');
    expect(ended).toEqual(['slow']);
    expect(sim.registered).toHaveLength(0);
    expect(await follower.nextBatch()).toBeNull();
  });

  it('takes one batch larger than the bound when it had taken everything before', async () => {
    const sim = simulate(0, 0, 10, 1_000);
    const follower = new Follower(sim.hub, { filter: ANY_CHANGE, since: null, client: 'c', transport: 'sse' });
    await follower.start();
    follower.deliver([1, 2, 3, 4, 5].map(event)); // 1,500 bytes at once
    expect(follower.ended).toBeNull();
    expect((await follower.nextBatch())!.map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('does not count what it has handed on against the bound', async () => {
    const sim = simulate(0, 0, 10, 1_000);
    const follower = new Follower(sim.hub, { filter: ANY_CHANGE, since: null, client: 'c', transport: 'sse' });
    await follower.start();
    for (let id = 1; id <= 20; id++) {
      follower.deliver([event(id)]);
      expect((await follower.nextBatch())!.map((e) => e.id)).toEqual([id]);
    }
    expect(follower.ended).toBeNull();
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
