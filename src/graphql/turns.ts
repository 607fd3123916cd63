// GraphQL documents prepared one per turn of the event loop. Parsing, validating, costing and compiling a
// document is 1–7 ms of CPU, done before anything can be refused for load (a plan is refused by the lane
// once its field runs): eight clients each sending four hard plans at once made 25–30 ms of it in a single
// turn, and a health check or a cached answer arriving meanwhile waited for all of it. Released one per
// turn, each document goes after whatever arrived before it (the loop polls between turns), so a request
// waits for one document's preparation at most. A lone document goes on in the same turn.
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

/** Each GraphQL request's parameters, once read, wait for their turn before the document is prepared. */
export function onePerTurn(): Plugin {
  const turn = turnByTurn();
  return { onParams: () => turn() };
}
