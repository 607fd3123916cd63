// One structured JSON line per event (pino): what operators grep and ship to their log store.
import { pino, type Logger } from 'pino';

export type { Logger };

// `time` is epoch milliseconds (pino's default): formatting an ISO date for every line cost a quarter of
// a cached answer's time.
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'savings-api' } }, destination);
}

/**
 * The service's log: standard output, written in batches rather than one write per line (a line per
 * request would otherwise cost a system call per request), and at least every second, so that a quiet
 * service's lines ("listening on …") are not held back until the batch is full. Flush it before exiting.
 * Each write is whole lines and at most PIPE_BUF (4096) bytes, which a pipe writes in one piece: the
 * workers of a cluster share one standard output, and their lines never interleave mid-line. When the
 * reader of standard output falls behind, at most MAX_LOG_BACKLOG is held: a flood of requests then
 * costs whole lines of the log (dropped as they come), not the process its memory.
 */
const MAX_LOG_BACKLOG = 8 * 1024 * 1024;

export function serviceLogger(level: string): { logger: Logger; flush(): void } {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: 2048,
    maxWrite: 4096,
    maxLength: MAX_LOG_BACKLOG,
    periodicFlush: 1000,
  });
  return { logger: createLogger(level, destination), flush: () => destination.flushSync() };
}
