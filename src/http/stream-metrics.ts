// The change streams in /metrics (contract §11.5): streams open now, events sent, streams cut for
// reading too slowly and resumes answered with a reset since start, each by transport (sse: GET
// /api/changes/stream; graphql: the subscription), and the replay window. The feed keeps the counts;
// the counters follow them by difference.
import { Gauge, type Registry } from 'prom-client';
import { followCounts } from './follow-counts.js';

/** What the change feed counts for its streams (src/catalog/change-feed.ts), each by transport. */
export interface StreamCounts {
  open: Readonly<Record<string, number>>;
  sent: Readonly<Record<string, number>>;
  cut: Readonly<Record<string, number>>;
  resets: Readonly<Record<string, number>>;
  tail: { events: number };
}

export function registerStreamMetrics(
  registry: Registry,
  transports: readonly string[],
  stats: () => StreamCounts,
): void {
  new Gauge({
    name: 'savings_streams_open',
    help: 'Change streams open now (transport=sse|graphql).',
    labelNames: ['transport'],
    registers: [registry],
    collect() {
      const open = stats().open;
      for (const transport of transports) this.set({ transport }, open[transport] ?? 0);
    },
  });
  const following = (name: string, help: string, pick: (s: StreamCounts) => Readonly<Record<string, number>>) =>
    followCounts(registry, name, help, 'transport', () => pick(stats()), transports);
  following(
    'savings_stream_events_sent_total',
    'Change events sent to streams since start (transport=sse|graphql).',
    (s) => s.sent,
  );
  following(
    'savings_streams_cut_total',
    'Change streams cut because their client read too slowly, since start (transport=sse|graphql).',
    (s) => s.cut,
  );
  following(
    'savings_stream_resets_total',
    'Change streams that asked to resume from before the replay window and were told to re-read, since start ' +
      '(transport=sse|graphql).',
    (s) => s.resets,
  );
  new Gauge({
    name: 'savings_stream_replay_events',
    help: 'Change events kept in memory for streams that resume (the replay window, STREAM_REPLAY_EVENTS at most).',
    registers: [registry],
    collect() {
      this.set(stats().tail.events);
    },
  });
}
