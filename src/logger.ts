// One structured JSON line per event (pino): what operators grep and ship to their log store.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'savings-api' }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
