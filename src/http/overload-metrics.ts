// Load in /metrics (README, "Overload"): computed answers in progress, their bound and those waiting for a
// slot; requests refused by reason; the time waited for a slot; and the plans' CPU lane (searches running,
// its capacity, the CPU it spent, searches stopped because their client went). With several workers each
// figure is the sum of theirs (each process has its own bound and lane).
import { Gauge, type Registry } from 'prom-client';
import type { LaneFigures } from '../catalog/lane.js';
import { followCounts } from './follow-counts.js';
import type { InFlightFigures } from './overload.js';

export interface LoadFigures {
  inFlight: InFlightFigures | null;
  lane: LaneFigures;
}

export function registerOverloadMetrics(registry: Registry, figures: () => LoadFigures): void {
  new Gauge({
    name: 'savings_in_flight',
    help:
      'Computed answers now (what=in_flight|limit|max|waiting|queue_bound): in progress, the most at once as ' +
      "the limit has adapted to the loop lag and the answers' time, the most it may be (MAX_IN_FLIGHT), " +
      'waiting for a slot, and how many may wait (six times MAX_IN_FLIGHT for a burst, twice while the ' +
      'queue stands: overload). Cached answers, health, metrics and streams are not counted.',
    labelNames: ['what'],
    registers: [registry],
    collect() {
      const f = figures().inFlight;
      if (!f) return;
      this.set({ what: 'in_flight' }, f.inFlight);
      this.set({ what: 'limit' }, f.limit);
      this.set({ what: 'max' }, f.maxLimit);
      this.set({ what: 'waiting' }, f.waiting);
      this.set({ what: 'queue_bound' }, f.queueBound);
    },
  });
  // Counts since start, kept by the bound and the lane: each counter follows its count by difference.
  const following = (name: string, help: string, label: string | null, counts: () => Record<string, number>) =>
    followCounts(registry, name, help, label, counts);
  following(
    'savings_requests_refused_total',
    'Requests refused with 503 for load since start (reason=full: the bound and its queue were full; waited: no ' +
      'slot within QUEUE_WAIT_MS; plan_lane: a savings plan while the lane ran as many as it may).',
    'reason',
    () => {
      const { inFlight, lane } = figures();
      return { full: inFlight?.refused.full ?? 0, waited: inFlight?.refused.waited ?? 0, plan_lane: lane.refused };
    },
  );
  following(
    'savings_queue_wait_seconds_total',
    'Time requests waited for a slot since start; with savings_queued_requests_total, the mean wait.',
    null,
    () => ({ total: figures().inFlight?.queuedSeconds ?? 0 }),
  );
  following('savings_queued_requests_total', 'Requests that waited for a slot since start.', null, () => ({
    total: figures().inFlight?.queued ?? 0,
  }));
  new Gauge({
    name: 'savings_plan_lane',
    help: 'Savings plan searches in the CPU lane now (what=running|capacity).',
    labelNames: ['what'],
    registers: [registry],
    collect() {
      const { lane } = figures();
      this.set({ what: 'running' }, lane.running);
      this.set({ what: 'capacity' }, lane.capacity);
    },
  });
  following(
    'savings_plan_lane_cpu_seconds_total',
    'CPU time the savings plan searches took in the lane since start.',
    null,
    () => ({ total: figures().lane.busyMs / 1000 }),
  );
  following(
    'savings_plan_searches_abandoned_total',
    'Savings plan searches stopped since start because their client went or their time was up.',
    null,
    () => ({ total: figures().lane.abandoned }),
  );
}
