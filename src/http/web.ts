// The comparison page at /: the files `npm run build` writes to dist/web, served from memory in front of
// the API's handler. Files under /assets/ carry a content hash in their names, so they never change and
// are cached for a year (immutable); index.html is revalidated on every load (no-cache), which is how a
// new build reaches browsers. Each file has a strong ETag per encoding (304 on a match), brotli and gzip
// forms made on first use and kept, and HEAD. The page runs under a Content-Security-Policy that allows
// only this origin and no inline script or style.
// It sits in front of the API's handler rather than inside it: that handler sets the API's own
// Cache-Control (five minutes) and keeps only content headers on the answers it finishes.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Logger } from '../logger.js';

/** Where `npm run build` puts the page (the same place from src/http and from dist/http). */
export const WEB_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const WEB_CACHE_CONTROL = {
  hashed: 'public, max-age=31536000, immutable',
  page: 'no-cache',
} as const;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);
/** vite names built files name-HASH.ext (eight characters of hash). */
const HASHED = /-[\w-]{8}\.[a-z0-9]+$/;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

type Encoding = 'br' | 'gzip';

interface WebFile {
  body: Uint8Array;
  headers: Record<string, string>;
  /** the opaque part of the ETag, without quotes */
  tag: string;
  /** compressed forms, made when first asked for (null: not worth it) */
  encoded: (() => Promise<Partial<Record<Encoding, Uint8Array>>>) | null;
}

/** What the service's handler offers; the page goes in front of it. */
export interface Handler {
  fetch(request: Request): Promise<Response>;
  listener(req: IncomingMessage, res: ServerResponse): void;
}

export interface WebPage {
  /** Whether a built page was found. */
  readonly built: boolean;
  /** The handler with the page in front of it: GET and HEAD of / and /assets/… are answered here. */
  around(handler: Handler): Handler;
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(path.join(dir, prefix), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const relative = path.posix.join(prefix, entry.name);
      return entry.isDirectory() ? listFiles(dir, relative) : Promise.resolve([relative]);
    }),
  );
  return nested.flat();
}

async function compress(body: Uint8Array): Promise<Partial<Record<Encoding, Uint8Array>>> {
  const [br, gz] = await Promise.all([
    brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } }),
    gzip(body, { level: 9 }),
  ]);
  return { br: new Uint8Array(br), gzip: new Uint8Array(gz) };
}

function webFile(name: string, body: Uint8Array): WebFile {
  const ext = path.extname(name);
  const page = name === 'index.html';
  const headers: Record<string, string> = {
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'cache-control': !page && HASHED.test(name) ? WEB_CACHE_CONTROL.hashed : WEB_CACHE_CONTROL.page,
    'x-content-type-options': 'nosniff',
  };
  if (page) {
    headers['content-security-policy'] = CONTENT_SECURITY_POLICY;
    headers['referrer-policy'] = 'same-origin';
  }
  const compressible = COMPRESSIBLE.has(ext) && body.byteLength >= 1024;
  if (compressible) headers.vary = 'Accept-Encoding';
  const tag = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  let forms: Promise<Partial<Record<Encoding, Uint8Array>>> | undefined;
  const encoded = compressible ? () => (forms ??= compress(body)) : null;
  return { body, headers, tag, encoded };
}

/** br when accepted (and preferred at least as much), else gzip, else none. */
function encodingFor(acceptEncoding: string | null | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    q.set(name, weight ? Number(weight.slice(2)) || 0 : 1);
  }
  const quality = (name: string) => q.get(name) ?? q.get('*') ?? 0;
  if (quality('br') > 0 && quality('br') >= quality('gzip')) return 'br';
  return quality('gzip') > 0 ? 'gzip' : null;
}

/** Weak comparison (RFC 9110 §13.1.2): W/ is ignored, a list or * matches. */
function matches(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === etag);
}

interface Answer {
  status: 200 | 304;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

async function answer(file: WebFile, method: string, acceptEncoding: string | null | undefined, ifNoneMatch: string | null | undefined): Promise<Answer> {
  const wanted = file.encoded ? encodingFor(acceptEncoding) : null;
  let body = file.body;
  let encoding: Encoding | null = null;
  if (wanted) {
    const forms = await file.encoded!().catch(() => ({}) as Partial<Record<Encoding, Uint8Array>>);
    const form = forms[wanted];
    if (form && form.byteLength < body.byteLength) {
      body = form;
      encoding = wanted;
    }
  }
  const etag = `"${file.tag}${encoding ? `-${encoding}` : ''}"`;
  const headers: Record<string, string> = { ...file.headers, etag };
  if (matches(ifNoneMatch, etag)) {
    delete headers['content-type'];
    return { status: 304, headers, body: null };
  }
  if (encoding) headers['content-encoding'] = encoding;
  headers['content-length'] = String(body.byteLength);
  return { status: 200, headers, body: method === 'HEAD' ? null : body };
}

export async function loadWebPage({ dir = WEB_DIR, logger }: { dir?: string; logger?: Logger } = {}): Promise<WebPage> {
  const files = new Map<string, WebFile>();
  let names: string[] = [];
  try {
    names = await listFiles(dir);
  } catch {
    // not built
  }
  for (const name of names) {
    if (name !== 'index.html' && !name.startsWith('assets/')) continue;
    files.set(`/${name}`, webFile(name, new Uint8Array(await readFile(path.join(dir, name)))));
  }
  const index = files.get('/index.html');
  files.delete('/index.html');
  if (index) files.set('/', index);
  else logger?.warn({ dir }, 'the web page is not built (run npm run build): / leads to the API docs');

  /** The file for a GET or HEAD of the page or one of its assets; null for anything else. */
  const lookup = (method: string | undefined, url: string | undefined): WebFile | null => {
    if (method !== 'GET' && method !== 'HEAD') return null;
    const pathname = (url ?? '/').split('?', 1)[0]!;
    return files.get(pathname) ?? null;
  };

  const log = (method: string, url: string, status: number, startedAt: bigint) =>
    logger?.info({ method, path: url.split('?', 1)[0], status, durationMs: Math.round(Number(process.hrtime.bigint() - startedAt) / 1e4) / 100 }, 'request');

  return {
    built: index !== undefined,
    around(handler: Handler): Handler {
      return {
        async fetch(request) {
          const url = new URL(request.url);
          const file = lookup(request.method, url.pathname);
          if (!file) return handler.fetch(request);
          const startedAt = process.hrtime.bigint();
          const { status, headers, body } = await answer(file, request.method, request.headers.get('accept-encoding'), request.headers.get('if-none-match'));
          log(request.method, url.pathname, status, startedAt);
          return new Response(body as Uint8Array<ArrayBuffer> | null, { status, headers });
        },
        listener(req, res) {
          const file = lookup(req.method, req.url);
          if (!file) return handler.listener(req, res);
          const startedAt = process.hrtime.bigint();
          answer(file, req.method!, req.headers['accept-encoding'], req.headers['if-none-match']).then(
            ({ status, headers, body }) => {
              res.writeHead(status, headers);
              res.end(body ?? undefined);
              log(req.method!, req.url ?? '/', status, startedAt);
            },
            (err: Error) => {
              logger?.error({ err }, 'could not send a file of the web page');
              res.destroy(err);
            },
          );
        },
      };
    },
  };
}
