// Every error a client can see: a stable code, its HTTP status and title. REST answers them as
// RFC 9457 problem+json, GraphQL as errors with `extensions.code`; both read this table.
import { GraphQLError } from 'graphql';

export const ERRORS = {
  BAD_USER_INPUT: { status: 400, title: 'Invalid request parameters', slug: 'invalid-parameters' },
  QUERY_TOO_COMPLEX: { status: 400, title: 'Query too complex', slug: 'query-too-complex' },
  NOT_FOUND: { status: 404, title: 'Not found', slug: 'not-found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed', slug: 'method-not-allowed' },
  REQUEST_TOO_LARGE: { status: 431, title: 'Request too large', slug: 'request-too-large' },
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

export function problem(code: ErrorCode, detail: string, errors?: ParameterProblem[]): Problem {
  const { status, title } = ERRORS[code];
  return { type: problemType(code), title, status, detail, ...(errors ? { errors } : {}) };
}

/**
 * A GraphQL error the client is meant to see (never masked), with its stable code. No HTTP status: a
 * GraphQL response that is partly good stays 200; the REST layer maps the code to its status.
 */
export function clientError(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extra } });
}

export const statusOf = (code: unknown): number => (typeof code === 'string' && code in ERRORS ? ERRORS[code as ErrorCode].status : 500);

export function badInput(errors: ParameterProblem[]): GraphQLError {
  const detail = errors.map((e) => `${e.parameter}: ${e.message}`).join('; ');
  return clientError('BAD_USER_INPUT', `Invalid arguments: ${detail}`, { errors });
}
