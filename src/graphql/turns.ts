// New GraphQL documents prepared one per turn of the event loop. Parsing, validating, costing and
// compiling a document is 1–7 ms of CPU, done before anything can be refused for load (a plan is refused
// by the lane once its field runs): eight clients each sending four hard plans at once made 25–30 ms of it
// in a single turn, and a health check or a cached answer arriving meanwhile waited for all of it.
// Released one per turn, each new document goes after whatever arrived before it (the loop polls between
// turns), so a request waits for one document's preparation at most. A lone document goes on in the same
// turn; a document already prepared (kept by its text) does not wait at all: its preparation is a lookup,
// and under load a turn may last tens of milliseconds.
import type { Plugin } from 'graphql-yoga';

/** A function whose promises resolve one per turn of the loop, in the order they were asked. */
export function turnByTurn(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const release = () => {
    waiting.shift()!();
    // Set from inside the check phase, the next immediate runs in the next turn, after its poll.
    if (waiting.length > 0) setImmediate(release);
    else scheduled = false;
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (scheduled) return;
      scheduled = true;
      setImmediate(release);
    });
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
