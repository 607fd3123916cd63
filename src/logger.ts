// One structured JSON line per event (pino): what operators grep and ship to their log store.
import { pino, type Logger } from 'pino';

export type { Logger };

// `time` is epoch milliseconds (pino's default): formatting an ISO date for every line cost a quarter of
// a cached answer's time.
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'savings-api' } }, destination);
}
