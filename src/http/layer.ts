// What every HTTP answer goes through on its way out, GraphQL and REST alike: a weak ETag computed from
// the body, 304 for a matching If-None-Match, Cache-Control per kind of response, compression when the
// client accepts it, and HEAD answered like GET without a body.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { pagePolicy } from './security.js';

export const CACHE_CONTROL = {
  data: 'public, max-age=300, stale-while-revalidate=60',
  /** An answer for a past data version (asOf): it can never change. */
  past: 'public, max-age=31536000, immutable',
  health: 'no-cache',
  assets: 'public, max-age=86400',
  /** Also what an answer of the moment says (markMomentary, src/request/reuse.ts). */
  none: 'no-store',
} as const;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** Not worth compressing below this size. */
const MIN_COMPRESS_BYTES = 1024;

/**
 * A paged answer's page and page count, and the parameters its route reads ("2 7 amount,type"), for its
 * Link header; the header itself is made per request.
 */
export const PAGING_HEADER = 'x-paging';

/** Longer Link headers leave out the parameters the route does not read (Node's clients read 16 KB of headers). */
const MAX_LINK = 8 * 1024;

/**
 * RFC 8288 links to the first, previous, next and last page (only those that exist), built from the
 * request's own query with only the page changed: a client follows them without knowing our parameters,
 * and keeps even those we ignore (contract §7). Unless they make the header longer than MAX_LINK: a URL
 * padded to 8 KB with them made a Link header of 32 KB; then only the parameters the route reads
 * (`read`) are kept.
 */
export function linkHeader(pathAndQuery: string, page: number, pages: number, read?: readonly string[]): string {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1));
  // A parameter by its name, whatever list form it came in (contract §11.1: terms[], terms[0]).
  const leaveOut = (unwanted: (name: string) => boolean) => {
    for (const key of new Set(params.keys())) if (unwanted(key.replace(/\[\d*\]$/, ''))) params.delete(key);
  };
  const build = () => {
    const to = (n: number, rel: string) => {
      params.set('page', String(n));
      return `<${path}?${params}>; rel="${rel}"`;
    };
    const links = [to(1, 'first')];
    if (page > 1) links.push(to(Math.min(page - 1, pages), 'prev'));
    if (page < pages) links.push(to(page + 1, 'next'));
    links.push(to(pages, 'last'));
    return links.join(', ');
  };
  leaveOut((name) => name === 'page');
  const links = build();
  if (links.length <= MAX_LINK || !read) return links;
  leaveOut((name) => !read.includes(name));
  return build();
}

const pagingOf = (response: Response): FinishedBody['paging'] => {
  const [page, pages, read] = (response.headers.get(PAGING_HEADER) ?? '').split(' ');
  if (!Number(page) || !Number(pages)) return undefined;
  return { page: Number(page), pages: Number(pages), ...(read ? { read: read.split(',') } : {}) };
};

/** Marks a streamed response, with the ETag computed from what determines its body. */
export const STREAM_ETAG = 'x-stream-etag';

export const etagOf = (body: Uint8Array | string): string =>
  `W/"${createHash('sha1').update(body).digest('base64url')}"`;

/** Weak comparison (RFC 9110 §13.1.2): opaque tags equal, W/ ignored; a list, or *. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  // What a client sends back is most often the very tag it was given.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const own = opaque(etag);
  return header.split(',').some((tag) => opaque(tag) === own);
}

export function preferredEncoding(acceptEncoding: string | null): 'br' | 'gzip' | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name!, q ? Number(q.slice(2)) || 0 : 1);
  }
  const quality = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (quality('br') > 0 && quality('br') >= quality('gzip')) return 'br';
  if (quality('gzip') > 0) return 'gzip';
  return null;
}

/** A finished body with its validator and compressed forms (kept by the body cache). */
export interface FinishedBody {
  status: number;
  /** What describes the content (type, disposition), kept with it. */
  headers: [string, string][];
  cacheControl: string;
  vary: string;
  /** Paged answers: their page and page count, and the parameters their route reads, for the Link header. */
  paging?: { page: number; pages: number; read?: string[] };
  body: Uint8Array;
  etag: string;
  encoded: Partial<Record<'br' | 'gzip', Uint8Array>>;
}

/** What a finished body keeps of the original headers: what describes the content, nothing per request. */
const CONTENT_HEADERS = new Set([
  'content-type',
  'content-disposition',
  'content-security-policy',
  // which data version an answer is of, its ledger chain hash, and for asOf the version's instant
  'data-version',
  'data-chain',
  'memento-datetime',
  'generated-at',
  'method-version',
]);

/** Answers vary by the encoding we compress them in, and by whatever the application said they vary by. */
const varyOf = (response: Response) => {
  const own = response.headers.get('vary');
  return own ? `Accept-Encoding, ${own}` : 'Accept-Encoding';
};

/** An answer's own Cache-Control wins (health, metrics, assets); the rest is data. */
const cacheControlOf = (response: Response) => response.headers.get('cache-control') ?? CACHE_CONTROL.data;

/** Bodies whose bytes their maker kept (bodyResponse): finished without reading the Response's stream back. */
const knownBodies = new WeakMap<Response, Uint8Array>();

/**
 * A Response of these bytes, which finish() takes as they are instead of reading the body back. Its body
 * is a stream that copies them only if something reads it: a Response made of the bytes themselves
 * copies them at once (the Fetch standard's "copy of the bytes held"), 70 KB for a page of 50 rows that
 * nothing but finish() reads. The copy, not the bytes, goes to a reader: a byte stream hands its chunks'
 * buffers over, and jsonBytes' small answers share Node's pool with other Buffers.
 */
export function bodyResponse(bytes: Uint8Array<ArrayBuffer>, init: ResponseInit): Response {
  const body = new ReadableStream({
    type: 'bytes',
    pull(controller) {
      controller.enqueue(new Uint8Array(bytes));
      controller.close();
    },
  });
  const response = new Response(body, init);
  knownBodies.set(response, bytes);
  return response;
}

/** The bytes to keep: a Buffer carved from Node's shared pool is copied out, else it would hold the 8 KB slab. */
const ownBytes = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);

export async function finish(response: Response): Promise<FinishedBody> {
  const known = knownBodies.get(response);
  const body = known ? ownBytes(known) : new Uint8Array(await response.arrayBuffer());
  // Names as they come: a ponyfill's Headers (yoga's) keeps their case ('Content-Type').
  const headers = [...response.headers]
    .map(([name, value]): [string, string] => [name.toLowerCase(), value])
    .filter(([name]) => CONTENT_HEADERS.has(name));
  const paging = pagingOf(response);
  return {
    status: response.status,
    headers,
    cacheControl: cacheControlOf(response),
    vary: varyOf(response),
    ...(paging ? { paging } : {}),
    body,
    etag: etagOf(body),
    encoded: {},
  };
}

/** The body in the encoding asked for (made once, then kept with it), or the plain body. */
export async function encodedBody(
  finished: FinishedBody,
  encoding: 'br' | 'gzip' | null,
  onGrow?: () => void,
): Promise<Uint8Array> {
  if (!encoding || finished.body.byteLength < MIN_COMPRESS_BYTES) return finished.body;
  let encoded = finished.encoded[encoding];
  if (!encoded) {
    encoded =
      encoding === 'br'
        ? new Uint8Array(await brotli(finished.body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }))
        : new Uint8Array(await gzip(finished.body, { level: 6 }));
    finished.encoded[encoding] = encoded;
    onGrow?.();
  }
  return encoded;
}

/** What every finished answer to a GET carries: its validator and how to cache it. */
export function cacheHeaders(etag: string, cacheControl: string, vary: string): Record<string, string> {
  return { etag, 'cache-control': cacheControl, vary };
}

/** 304 with a fresh header set: copying the 200's headers would leave Content-Type on it. */
export function notModified(etag: string, cacheControl: string, vary: string): Response {
  return new Response(null, { status: 304, headers: cacheHeaders(etag, cacheControl, vary) });
}

/** A finished 200 as the client asked for it: 304, compressed, or plain; no body for HEAD. */
export async function answer(request: Request, finished: FinishedBody, onGrow?: () => void): Promise<Response> {
  const { etag, cacheControl, vary } = finished;
  if (matchesIfNoneMatch(request.headers.get('if-none-match'), etag)) return notModified(etag, cacheControl, vary);
  const headers = new Headers(finished.headers);
  for (const [name, value] of Object.entries(cacheHeaders(etag, cacheControl, vary))) headers.set(name, value);
  const policy = pagePolicy(headers.get('content-type'), headers.get('content-security-policy'));
  if (policy) headers.set('content-security-policy', policy);
  if (finished.paging) {
    const url = new URL(request.url);
    const { page, pages, read } = finished.paging;
    headers.set('link', linkHeader(url.pathname + url.search, page, pages, read));
  }
  const encoding = preferredEncoding(request.headers.get('accept-encoding'));
  const body = await encodedBody(finished, encoding, onGrow);
  if (body !== finished.body) headers.set('content-encoding', encoding!);
  headers.set('content-length', String(body.byteLength));
  return new Response(request.method === 'HEAD' ? null : (body as Uint8Array<ArrayBuffer>), {
    status: finished.status,
    headers,
  });
}

/**
 * A response streamed as it is produced (the CSV export): its ETag cannot come from a body that does
 * not exist yet, so the handler gives one computed from what determines the body (the normalised
 * request and the data version); compressed on the fly.
 */
export function answerStream(request: Request, response: Response, etag: string): Response {
  const cacheControl = cacheControlOf(response);
  const vary = varyOf(response);
  if (matchesIfNoneMatch(request.headers.get('if-none-match'), etag)) return notModified(etag, cacheControl, vary);
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(cacheHeaders(etag, cacheControl, vary))) headers.set(name, value);
  if (request.method === 'HEAD' || !response.body) {
    void response.body?.cancel();
    return new Response(null, { status: response.status, headers });
  }
  const encoding = preferredEncoding(request.headers.get('accept-encoding'));
  if (!encoding) return new Response(response.body, { status: response.status, headers });
  headers.set('content-encoding', encoding);
  headers.delete('content-length');
  const compressor =
    encoding === 'br'
      ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } })
      : zlib.createGzip();
  const compressed = Readable.fromWeb(response.body as never).pipe(compressor);
  return new Response(Readable.toWeb(compressed) as unknown as ReadableStream, { status: response.status, headers });
}

/** An Accept or Content-Type naming Server-Sent Events. */
export const EVENT_STREAM = /text\/event-stream/i;

export const isEventStream = (response: Response): boolean =>
  EVENT_STREAM.test(response.headers.get('content-type') ?? '');

/**
 * Server-Sent Events, as they are produced: no body cache (it would wait for an end that never comes),
 * no compression (it would hold events back in the compressor), no ETag; `no-store` and no buffering
 * by a proxy in front (nginx reads X-Accel-Buffering). HEAD gets the headers and ends the stream.
 */
export function answerEventStream(request: Request, response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('cache-control', CACHE_CONTROL.none);
  headers.set('x-accel-buffering', 'no');
  headers.delete('etag');
  headers.delete('content-length');
  // graphql-yoga labels its streams "Content-Encoding: none", which is no encoding HTTP knows.
  if (headers.get('content-encoding') === 'none') headers.delete('content-encoding');
  if (request.method === 'HEAD' || !response.body) {
    void response.body?.cancel();
    return new Response(null, { status: response.status, headers });
  }
  return new Response(response.body, { status: response.status, headers });
}
