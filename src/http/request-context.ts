// The request id, available anywhere while a request is handled (error logs included).
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestScope {
  id: string;
  startedAt: bigint;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();

/** A client's X-Request-Id is echoed when it is sane; otherwise a new one is made. */
export function requestIdFrom(header: string | null): string {
  return header && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
}

export const currentRequestId = (): string | undefined => requestScope.getStore()?.id;
