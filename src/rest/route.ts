// What a REST route is: the spec path, its parameters (GraphQL arguments seen from the query string),
// how its answers may be cached, what its answers hold (for the OpenAPI document), and one handler that
// takes the parsed parameters, runs a fixed GraphQL operation and shapes the answer. Every route takes
// that one path: src/rest/facade.ts matches, parses and calls `handle`.
import type { DocumentNode } from 'graphql';
import type { Context } from '../graphql/context.js';
import { bodyResponse, CACHE_CONTROL, PAGING_HEADER } from '../http/layer.js';
import { jsonBytes } from './json-bytes.js';
import type { ParamSpec } from './params.js';

export type Variables = Record<string, unknown>;

/**
 * Whether a finished answer may be given again for the same request while the data stays the same:
 * always (`version`), for at most a minute because it depends on the clock (`minute`), or never.
 */
export type Reuse = 'version' | 'minute' | 'never';

export interface CachePolicy {
  /** Cache-Control of its answers. */
  control: (typeof CACHE_CONTROL)[keyof typeof CACHE_CONTROL];
  reuse: Reuse | ((variables: Variables) => Reuse);
}

export const DATA: CachePolicy = { control: CACHE_CONTROL.data, reuse: 'version' };

/** What a 200 holds, for the OpenAPI document. */
export type Body =
  | { json: string } // a GraphQL output type, in REST spelling
  | { jsonOneOf: string[] }
  | { csv: string }
  | { html: string }
  | { openapi: true }
  | { metrics: true }
  | { sse: string } // Server-Sent Events, each event's data a GraphQL output type, in REST spelling
  | { atom: string } // an Atom 1.0 feed
  | { canonical: string }; // canonical JSON, hashed as it is (GET /api/state)

/** Runs a GraphQL operation on the request's context; throws OperationFailed with its errors. */
export type Runner = <T = Record<string, unknown>>(document: DocumentNode, variables: Variables) => Promise<T>;

export interface RouteRequest {
  /** Parsed and checked, every default filled in, in GraphQL spelling. */
  variables: Variables;
  url: URL;
  run: Runner;
  /** The data version the request's context reads. */
  version(): Promise<number>;
  /** The request itself: its headers (Last-Event-ID), and its signal, which aborts when the client leaves. */
  request: Request;
  /**
   * The request's GraphQL context, for a route that reads a service rather than running an operation (the change
   * stream).
   */
  context(): Promise<Context>;
}

export interface RestRoute {
  /** OpenAPI path template, e.g. /api/products/{id} */
  path: string;
  operationId: string;
  tag: 'Offers' | 'Market' | 'Service';
  summary: string;
  description: string;
  params: ParamSpec[];
  cache: CachePolicy;
  body: Body;
  /** Answers that need the database can be 503 while it is away. */
  readsDatabase: boolean;
  /** 404 and what it means, where the route can answer it. */
  notFound?: string;
  /** Paged: answers carry page, pageSize and pages, and a Link header. */
  paged?: boolean;
  /** Not counted toward the rate limit: probes and scrapers must get through whatever clients do. */
  exemptFromRateLimit?: true;
  handle(request: RouteRequest): Promise<Response> | Response;
}

export const json = (body: unknown, init: { status?: number; headers?: Record<string, string> } = {}) =>
  bodyResponse(jsonBytes(body), {
    status: init.status ?? 200,
    headers: { 'content-type': 'application/json; charset=utf-8', ...init.headers },
  });

/** A paged answer: the body, and its page and page count for the Link header the HTTP layer makes. */
export const pagedJson = (body: { page: number; pages: number }) =>
  json(body, { headers: { [PAGING_HEADER]: `${body.page} ${body.pages}` } });
