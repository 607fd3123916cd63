// The request's log line is made by hand for speed (logging.ts); pino, given the same fields, is the
// reference it must equal byte for byte, whatever the client put in its URL.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../logger.js';
import { logLine, MAX_LOGGED_QUERY } from './logging.js';

const captured = () => {
  const lines: string[] = [];
  return { lines, logger: createLogger('info', { write: (line: string) => void lines.push(line) }) };
};

// What Node's parser gives as a target: latin-1 characters, quotes, backslashes and controls among them.
const latin1 = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)) });
const target = fc.oneof(
  fc.tuple(latin1, fc.option(latin1, { nil: undefined })).map(([p, q]) => `/${p}${q === undefined ? '' : `?${q}`}`),
  // past the bound of what a line repeats
  fc
    .tuple(fc.constantFrom('/api/products', 'x'.repeat(MAX_LOGGED_QUERY + 5)), fc.integer({ min: 1000, max: 3000 }))
    .map(([p, n]) => `${p}?amount=${'9'.repeat(n)}`),
);

describe('the request log line', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T12:00:00.123Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('is what pino writes for the same fields', () => {
    fc.assert(
      fc.property(
        target,
        fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS'),
        fc.constantFrom(200, 304, 404, 503),
        fc.option(fc.constantFrom('127.0.0.1', '2001:db8::1', 'local'), { nil: undefined }),
        fc.constantFrom('3f2c1e0a-8d4b-4c6e-9a1f-0b2c3d4e5f60', 'client-"chosen"\\id'),
        (pathAndQuery, method, status, client, requestId) => {
          const ours = captured();
          logLine(ours.logger, requestId, process.hrtime.bigint(), method, pathAndQuery, status, client);
          expect(ours.lines).toHaveLength(1);
          const line = ours.lines[0]!;
          const written = JSON.parse(line) as Record<string, unknown>;
          expect(Math.round((written.durationMs as number) * 100) / 100).toBe(written.durationMs);

          const q = pathAndQuery.indexOf('?');
          const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
          const query = q < 0 ? undefined : pathAndQuery.slice(q);
          const long = query !== undefined && query.length > MAX_LOGGED_QUERY;
          const reference = captured();
          reference.logger.info(
            {
              requestId,
              method,
              path: path.length > MAX_LOGGED_QUERY ? `${path.slice(0, MAX_LOGGED_QUERY)}…` : path,
              query: long ? `${query.slice(0, MAX_LOGGED_QUERY)}…` : query,
              ...(long ? { queryLength: query.length } : {}),
              status,
              client,
              durationMs: written.durationMs, // the only field the clock decides
            },
            'request',
          );
          expect(line).toBe(reference.lines[0]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is not written below the logger’s level, and the answer is still counted', () => {
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    const observed: unknown[] = [];
    logLine(logger, 'id', process.hrtime.bigint(), 'GET', '/api/products?x=1', 200, '127.0.0.1', (...a) =>
      observed.push(a),
    );
    expect(lines).toEqual([]);
    expect(observed).toEqual([['GET', '/api/products', 200, expect.any(Number)]]);
  });
});
