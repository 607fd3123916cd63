// What the primary and its workers say to each other over node:cluster's IPC channel. Every message
// carries `savings` so that other users of the channel are told apart.
import type { Taken } from '../http/rate-limit.js';

/** A worker asks; the primary answers with the same id. */
export type WorkerRequest =
  | { savings: 'take'; id: number; client: string }
  /** Every worker's /api/metrics figures (and the primary's own), or the Prometheus text of them all. */
  | { savings: 'gather'; id: number; what: 'stats' | 'prometheus' }
  /** About to listen: the primary first closes the fallback that answered while no worker could. */
  | { savings: 'listen'; id: number };

/** A worker tells the primary, expecting nothing back. */
export type WorkerNotice =
  /** Its catalogue moved to a new data version: the other workers should look now, not at their next poll. */
  | { savings: 'swapped'; version: number }
  /** It cannot serve and is about to exit: why (what health says meanwhile), and whether it is the capacity. */
  | { savings: 'unfit'; reason: string; capacity: boolean };

export type PrimaryReply =
  | { savings: 'taken'; id: number; taken: Taken }
  | { savings: 'gathered'; id: number; value: unknown }
  | { savings: 'go'; id: number }
  | { savings: 'failed'; id: number; error: string };

/**
 * The primary asks a worker something (its own figures: for /api/metrics, or its registry's metrics as
 * JSON for /metrics), or tells it to do something.
 */
export type PrimaryCommand =
  | { savings: 'stats'; id: number; what?: 'prometheus' }
  | { savings: 'refresh' }
  /** Stop accepting, drain, exit 0: the cluster is shutting down. */
  | { savings: 'shutdown' };

export type WorkerAnswer = { savings: 'stats'; id: number; value: unknown };

export type ToPrimary = WorkerRequest | WorkerNotice | WorkerAnswer;
export type ToWorker = PrimaryReply | PrimaryCommand;

export const isOurs = (message: unknown): message is { savings: string } =>
  typeof message === 'object' && message !== null && typeof (message as { savings?: unknown }).savings === 'string';
