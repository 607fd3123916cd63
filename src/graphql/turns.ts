// New GraphQL documents prepared one per turn of the event loop. Parsing, validating, costing and
// compiling a document is 1–7 ms of CPU, done before anything can be refused for load (a plan is refused
// by the lane once its field runs): eight clients each sending four hard plans at once made 25–30 ms of it
// in a single turn, and a health check or a cached answer arriving meanwhile waited for all of it.
// Released one per turn, each new document goes after whatever arrived before it (the loop polls between
// turns), so a request waits for one document's preparation at most. A lone document goes on in the same
// turn; a document already prepared (kept by its text) does not wait at all: its preparation is a lookup,
// and under load a turn may last tens of milliseconds.
import type { Plugin } from 'graphql-yoga';
import { CpuLane } from '../catalog/lane.js';

// Nothing to compute: a task of the lane that ends in its first slice, so that it is the turn itself.
function* nothing(): Generator<never, void, void> {}

/**
 * A function whose promises resolve one per turn of the loop, in the order they were asked: a lane of
 * its own (src/catalog/lane.ts runs one task's slice per turn, oldest first), each task ending at once.
 */
export function turnByTurn(): () => Promise<void> {
  const lane = new CpuLane(undefined, Number.POSITIVE_INFINITY, 'oldest-first');
  return () => lane.run(nothing());
}

/**
 * A GraphQL request whose document is new (`prepared` says which are not) waits for its turn once its
 * parameters are read. A persisted query's hash alone is looked up later (APQ) and does not wait.
 */
export function onePerTurn(prepared: (document: string) => boolean): Plugin {
  const turn = turnByTurn();
  return {
    onParams: ({ params }) => {
      const document = params.query;
      if (document === undefined || prepared(document)) return;
      return turn();
    },
  };
}
