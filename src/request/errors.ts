// Every error a client can see: a stable code, its HTTP status and title. REST answers them as
// RFC 9457 problem+json, GraphQL as errors with `extensions.code`; both read this table.
import { GraphQLError } from 'graphql';
import type { DatabaseStatus } from '../db/status.js';

export const ERRORS = {
  BAD_USER_INPUT: { status: 400, title: 'Invalid request parameters', slug: 'invalid-parameters' },
  BAD_REQUEST: { status: 400, title: 'Bad request', slug: 'bad-request' },
  QUERY_TOO_COMPLEX: { status: 400, title: 'Query too complex', slug: 'query-too-complex' },
  NOT_FOUND: { status: 404, title: 'Not found', slug: 'not-found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed', slug: 'method-not-allowed' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large', slug: 'payload-too-large' },
  URI_TOO_LONG: { status: 414, title: 'URI too long', slug: 'uri-too-long' },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    title: 'Request header fields too large',
    slug: 'request-headers-too-large',
  },
  TOO_MANY_REQUESTS: { status: 429, title: 'Too many requests', slug: 'too-many-requests' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable', slug: 'service-unavailable' },
  INTERNAL_SERVER_ERROR: { status: 500, title: 'Unexpected error', slug: 'unexpected-error' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** One bad parameter: the name clients used (REST parameter = GraphQL argument) and why. */
export interface ParameterProblem {
  parameter: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ParameterProblem[];
}

export const problemType = (code: ErrorCode) => `/api/docs#problem-${ERRORS[code].slug}`;

/**
 * What a message may echo of a client's input at most: a 1 MB field name or path is not repeated back
 * in full (to that client, or into the log).
 */
export const MAX_ECHO = 300;
export const clip = (text: string, max = MAX_ECHO): string =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;

export function problem(code: ErrorCode, detail: string, errors?: ParameterProblem[]): Problem {
  const { status, title } = ERRORS[code];
  return {
    type: problemType(code),
    title,
    status,
    detail: clip(detail, 3 * MAX_ECHO),
    ...(errors ? { errors: errors.map((e) => ({ parameter: clip(e.parameter, 100), message: clip(e.message) })) } : {}),
  };
}

/**
 * A GraphQL error the client is meant to see (never masked), with its stable code. No HTTP status: a
 * GraphQL response that is partly good stays 200; the REST layer maps the code to its status.
 */
export function clientError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

export const statusOf = (code: unknown): number =>
  typeof code === 'string' && code in ERRORS ? ERRORS[code as ErrorCode].status : 500;

/** Seconds a client should wait before asking again when the database is away. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * Runs a database read for a client: a failure there means the database is unreachable or too slow
 * (the queries themselves are fixed), which the client sees as 503 with Retry-After, not as a 500.
 */
export async function fromDatabase<T>(status: DatabaseStatus, read: () => Promise<T>): Promise<T> {
  try {
    return await status.track(read);
  } catch {
    // What the driver said (hosts, ports) is not the client's business; the reload watcher logs it.
    throw clientError('SERVICE_UNAVAILABLE', 'The database is not reachable right now; please retry shortly.', {
      retryAfter: RETRY_AFTER_SECONDS,
    });
  }
}

export function badInput(errors: ParameterProblem[]): GraphQLError {
  const detail = errors.map((e) => `${e.parameter}: ${e.message}`).join('; ');
  return clientError('BAD_USER_INPUT', `Invalid arguments: ${detail}`, { errors });
}
