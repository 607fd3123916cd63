// What the front (the thread that accepts connections) and the application's thread say to each other,
// over the worker's MessagePort. A request goes over whole (its body read by the front); its answer comes
// back as a head with the whole body, or, for streams (events, a long CSV), a head and then its chunks.
import type { Config } from '../config.js';
import type { FrontFigures } from '../front.js';
import type { MemoryPlan } from '../memory.js';
import type { Refused } from '../catalog/store.js';

/** What the application's thread is started with (workerData). */
export interface BackInput {
  config: Config;
  memory: MemoryPlan;
  /** The database the process opened and migrated: the application's thread connects to it too. */
  database: { url: string; kind: 'embedded' | 'postgresql' };
}

/** A whole answer. */
export interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

export type ToBack =
  | {
      t: 'request';
      id: number;
      method: string;
      url: string;
      headers: [string, string][];
      body: ArrayBuffer | null;
      requestId: string;
      client: string;
      /** How long from now the answer is still worth computing (ms; threads have their own clocks). */
      deadlineInMs: number;
    }
  /** The client went, or the front answered 503 for the time taken: stop computing. */
  | { t: 'abort'; id: number; reason: 'gone' | 'expired' }
  /** The front's part of /api/metrics, as asked. */
  | { t: 'figures'; id: number; value: FrontFigures }
  | { t: 'closeStreams' }
  | { t: 'refresh' }
  | { t: 'close' };

export type ToFront =
  /** Listening may begin: the application has answered its first list. */
  | { t: 'ready'; version: number; warmUpMs: number }
  /** It cannot serve: its catalogue does not fit (store.ts), or another error. */
  | { t: 'failed'; message: string; tooLarge?: Refused }
  | {
      t: 'head';
      id: number;
      status: number;
      headers: [string, string][];
      body: ArrayBuffer | null;
      streamed: boolean;
      /** Whether the answer may be kept (the database did not fail meanwhile). */
      cacheable: boolean;
    }
  | { t: 'chunk'; id: number; data: Uint8Array }
  | { t: 'end'; id: number; error?: string }
  /** The data version moved (the front's cached answers are of the old one), and whether answers may be kept. */
  | { t: 'state'; version: number; cacheable: boolean }
  /** The most the application's loop lagged in the last window (ms): the bound of work adapts to it. */
  | { t: 'lag'; ms: number }
  /**
   * Every second: the application's registry (getMetricsAsJSON) and its answer to GET /api/health, which
   * the front answers /metrics and health from without waiting for a turn of the application's loop.
   */
  | { t: 'report'; metrics: unknown; health: Answer }
  /** The application asks for the front's figures (/api/metrics). */
  | { t: 'figures'; id: number }
  | { t: 'closed' };
