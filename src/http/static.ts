// Files the service serves as they are — the comparison page, GraphiQL's bundle — made finished
// answers once (validator, content headers, compressed forms kept with them), so that the HTTP front
// answers them like any cached answer: 304, compression, HEAD, CORS, security headers, request id,
// log line and metrics, without hashing or compressing the same bytes again.
import { etagOf, type FinishedBody } from './layer.js';

/** A file as a finished answer of its own. */
export function staticFile(
  body: Uint8Array,
  contentType: string,
  cacheControl: string,
  headers: Record<string, string> = {},
): FinishedBody {
  return {
    status: 200,
    headers: [['content-type', contentType], ...Object.entries(headers)],
    cacheControl,
    vary: 'Accept-Encoding',
    body,
    etag: etagOf(body),
    encoded: {},
  };
}

/** The file at a path (a promise while it is being read for the first time), or undefined. */
export type StaticFiles = (pathname: string) => FinishedBody | Promise<FinishedBody> | undefined;

/** Several sets of files, the first that has the path answering. */
export const allOf =
  (...sets: StaticFiles[]): StaticFiles =>
  (pathname) => {
    for (const files of sets) {
      const file = files(pathname);
      if (file) return file;
    }
    return undefined;
  };
