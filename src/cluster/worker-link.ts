// A worker's side of the IPC channel to the primary: requests with replies (a rate-limit token, every
// worker's figures), notices (a new data version), and the primary's commands (look for new data now,
// report your figures; shutting down is src/server.ts's).
import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import type { Taken } from '../http/rate-limit.js';
import { isOurs, type PrimaryReply, type ToPrimary, type ToWorker } from './messages.js';

export interface WorkerLink {
  /** This worker's number (1, 2, …), for its log lines. */
  readonly worker: number;
  /** Takes a token from the one bucket per client that all workers share (kept by the primary). */
  take(client: string): Promise<Taken>;
  /** Every worker's /api/metrics figures and the primary's own. */
  gatherStats(): Promise<unknown>;
  /** The Prometheus text of every process's registry, aggregated (src/cluster/stats.ts: aggregateMetrics). */
  gatherPrometheus(): Promise<string>;
  swapped(version: number): void;
  /** Waits until the port is the cluster's again (see src/cluster/fallback.ts). */
  beforeListen(): Promise<void>;
  /** Tells the primary why this worker cannot serve; resolves once the message is sent. */
  unfit(reason: string, capacity: boolean): Promise<void>;
  /** What this worker answers when the primary asks for its figures (nothing until it has an app). */
  onStats(report: () => Promise<unknown>): void;
  /** The registry whose metrics this worker contributes to /metrics (none until it has an app). */
  useRegistry(registry: Registry): void;
  onRefresh(listener: () => void): void;
  /** The primary says: stop accepting, drain, exit (the cluster is shutting down). */
  onShutdown(listener: () => void): void;
}

const REPLY_TIMEOUT_MS = 5_000;

/**
 * Null outside a cluster worker (single-process mode). Made first thing, so the primary's questions are answered while
 * the worker starts.
 */
export function workerLink(): WorkerLink | null {
  if (!cluster.isWorker || !process.send) return null;
  const send = (message: ToPrimary) => process.send!(message);
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve(reply: PrimaryReply): void; reject(err: Error): void; timer: NodeJS.Timeout }
  >();
  let stats: () => Promise<unknown> = async () => null;
  let registry: Registry | undefined;
  const refreshListeners: (() => void)[] = [];
  const shutdownListeners: (() => void)[] = [];

  process.on('message', (message: unknown) => {
    if (!isOurs(message)) return;
    const m = message as ToWorker;
    switch (m.savings) {
      case 'taken':
      case 'go':
      case 'gathered':
      case 'failed': {
        const waiting = pending.get(m.id);
        if (!waiting) return;
        pending.delete(m.id);
        clearTimeout(waiting.timer);
        if (m.savings === 'failed') waiting.reject(new Error(m.error));
        else waiting.resolve(m);
        return;
      }
      case 'stats':
        // Nothing until the app has made its registry: a worker still starting has no figures.
        void (m.what === 'prometheus' ? (registry?.getMetricsAsJSON() ?? Promise.resolve([])) : stats()).then((value) =>
          send({ savings: 'stats', id: m.id, value }),
        );
        return;
      case 'refresh':
        for (const listener of refreshListeners) listener();
        return;
      case 'shutdown':
        for (const listener of shutdownListeners) listener();
        return;
    }
  });

  const ask = (message: (id: number) => ToPrimary): Promise<PrimaryReply> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the primary process did not answer'));
      }, REPLY_TIMEOUT_MS);
      timer.unref();
      pending.set(id, { resolve, reject, timer });
      send(message(id));
    });

  return {
    worker: cluster.worker!.id,
    async take(client) {
      const reply = await ask((id) => ({ savings: 'take', id, client }));
      return (reply as Extract<PrimaryReply, { savings: 'taken' }>).taken;
    },
    async gatherStats() {
      return (
        (await ask((id) => ({ savings: 'gather', id, what: 'stats' }))) as Extract<
          PrimaryReply,
          { savings: 'gathered' }
        >
      ).value;
    },
    async gatherPrometheus() {
      return String(
        (
          (await ask((id) => ({ savings: 'gather', id, what: 'prometheus' }))) as Extract<
            PrimaryReply,
            { savings: 'gathered' }
          >
        ).value,
      );
    },
    swapped: (version) => send({ savings: 'swapped', version }),
    async beforeListen() {
      await ask((id) => ({ savings: 'listen', id }));
    },
    unfit: (reason, capacity) =>
      new Promise((resolve) =>
        process.send!({ savings: 'unfit', reason, capacity } satisfies ToPrimary, () => resolve()),
      ),
    onStats: (report) => void (stats = report),
    useRegistry: (own) => void (registry = own),
    onRefresh: (listener) => void refreshListeners.push(listener),
    onShutdown: (listener) => void shutdownListeners.push(listener),
  };
}
