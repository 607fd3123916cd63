// A snapshot the service could not hold is not written. The catalogue of active offers lives in every
// serving process's heap; one too large for the memory budget (src/memory.ts) does not make the service
// slow, it stops it: every worker runs out of heap loading it, and again after every restart. So the
// ingest compares what the snapshot would leave active with what the configuration holds, before writing.
import { budgetFor, memoryPlanOf, type ServiceShape } from '../memory.js';
import type { ChangeSet, CurrentState } from './diff.js';

/** What the ingest is told of the service it feeds: the settings that size a serving process. */
export interface Capacity {
  maxOffers: number;
  /** How to say it: the settings and, for a refusal, the budget that would hold the snapshot. */
  describe(offers: number): string;
}

/** `maxOffers`: what the serving process's own plan holds, when it has one (else the configuration's). */
export function capacityOf(config: ServiceShape, maxOffers = memoryPlanOf(config).maxOffers): Capacity {
  const shape = { workers: config.workers, embedded: !config.databaseUrl, frontThread: config.computeThread };
  return {
    maxOffers,
    describe(offers) {
      const needed = budgetFor(offers, shape);
      return (
        `MEMORY_BUDGET_MB=${config.memoryBudgetMb} with ${shape.workers} worker${shape.workers === 1 ? '' : 's'} ` +
        `holds at most ${maxOffers.toLocaleString('en')} active offers` +
        (needed ? `; ${offers.toLocaleString('en')} need MEMORY_BUDGET_MB=${needed} (or fewer WORKERS)` : '')
      );
    },
  };
}

export class TooLarge extends Error {
  constructor(
    readonly offers: number,
    readonly before: number,
    capacity: Capacity,
  ) {
    super(
      `the snapshot would leave ${offers.toLocaleString('en')} active offers (now ${before.toLocaleString('en')}); ` +
        `${capacity.describe(offers)}. Set it for the service and the ingest alike.`,
    );
  }
}

/** Active offers now, and after the change set. */
export function activeOffers(state: CurrentState, changes: ChangeSet): { before: number; after: number } {
  let before = 0;
  for (const o of state.offers.values()) if (o.status === 'active') before++;
  let after = before;
  for (const o of changes.offers) {
    const was = state.offers.get(o.id)?.status === 'active';
    after += (o.status === 'active' ? 1 : 0) - (was ? 1 : 0);
  }
  return { before, after };
}

/**
 * Throws TooLarge when the change set grows the catalogue past the capacity. A snapshot that shrinks an
 * oversized catalogue (the repair) is let through, even if still above it.
 */
export function checkCapacity(state: CurrentState, changes: ChangeSet, capacity: Capacity | undefined): void {
  if (!capacity) return;
  const { before, after } = activeOffers(state, changes);
  if (after > capacity.maxOffers && after > before) throw new TooLarge(after, before, capacity);
}
