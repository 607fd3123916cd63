// The request id, available anywhere while a request is handled (error logs included).
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';

export interface RequestScope {
  id: string;
  startedAt: bigint;
  /** The client's address (clientAddress: behind trusted proxies, the one they vouch for); absent without a socket. */
  client?: string;
  /** The request's connection, for what a stream leaves unread in it; absent without a socket. */
  socket?: Socket;
  /** Aborts when the client goes. */
  signal?: AbortSignal;
  /** performance.now() past which the answer is no longer worth computing (REQUEST_TIMEOUT_MS). */
  deadline?: number;
  /** Aborted when the request has been answered 503 for its time (made when a long calculation asks). */
  expiry?: AbortController;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/** A client's X-Request-Id is echoed when it is sane; otherwise a new one is made. */
export function requestIdFrom(header: string | null): string {
  return header && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
}

export const currentRequestId = (): string | undefined => requestScope.getStore()?.id;

/** Who is asking, for limits per client: its address, or "local" for requests without a socket (app.fetch). */
export const currentClient = (): string => requestScope.getStore()?.client ?? 'local';

export const currentSocket = (): Socket | undefined => requestScope.getStore()?.socket;

/**
 * What a long calculation (src/catalog/lane.ts) asks of its request: a signal that aborts when its client
 * goes or its time is up (nobody is left to answer), and the instant it should give up with what it has.
 */
export function currentLimits(): { signal?: AbortSignal; deadline?: number } {
  const scope = requestScope.getStore();
  if (!scope) return {};
  scope.expiry ??= new AbortController();
  const expired = scope.expiry.signal;
  return { signal: scope.signal ? AbortSignal.any([scope.signal, expired]) : expired, deadline: scope.deadline };
}
