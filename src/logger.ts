// One structured JSON line per event (pino): what operators grep and ship to their log store.
import { pino, type Logger } from 'pino';
import { ATOMIC_WRITE_BYTES, LineWriter } from './log-lines.js';

export type { Logger };

// `time` is epoch milliseconds (pino's default): formatting an ISO date for every line cost a quarter of
// a cached answer's time.
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'savings-api' } }, destination);
}

/**
 * The service's log: standard output, written in batches rather than one write per line (a line per
 * request would otherwise cost a system call per request), and at least every second, so that a quiet
 * service's lines ("listening on …") are not held back until the batch is full (src/log-lines.ts: whole
 * lines; at most 4,096 bytes a write where a cluster's processes share standard output, which a pipe
 * keeps in one piece).
 * When the reader of standard output falls behind, at most MAX_LOG_BACKLOG is held: a flood of requests
 * then costs whole lines of the log (dropped as they come), not the process its memory. Flush it before
 * exiting.
 */
const MAX_LOG_BACKLOG = 8 * 1024 * 1024;

/** How often lines dropped are counted in the log. */
const DROPPED_EVERY_MS = 10_000;

/** What a process that has standard output to itself writes at most at once. */
const MAX_WRITE = 1024 * 1024;

/** `shared`: other processes write to the same standard output (a cluster's primary and workers). */
export function serviceLogger(level: string, { shared = false } = {}): { logger: Logger; flush(): void } {
  const destination = new LineWriter(1, {
    minBytes: 2048,
    maxWriteBytes: shared ? ATOMIC_WRITE_BYTES : MAX_WRITE,
    maxBacklogBytes: MAX_LOG_BACKLOG,
    flushEveryMs: 1000,
  });
  const logger = createLogger(level, destination);
  // Lines lost are said, once the log has room again: a gap in the log then has its reason in it.
  let said = 0;
  setInterval(() => {
    if (destination.dropped === said) return;
    logger.warn({ dropped: destination.dropped - said }, 'log lines dropped: standard output was read too slowly');
    said = destination.dropped;
  }, DROPPED_EVERY_MS).unref();
  return { logger, flush: () => destination.flushSync() };
}
