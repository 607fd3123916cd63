// The comparison page at /: the files `npm run build` writes to dist/web, read once at start and served
// as static files through the HTTP front (src/http/static.ts). Files under /assets/ carry a content
// hash in their names, so they never change and are cached for a year (immutable); index.html is
// revalidated on every load (no-cache), which is how a new build reaches browsers. The page runs under
// the front's Content-Security-Policy for HTML: this origin only, no inline script or style.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.js';
import type { FinishedBody } from './layer.js';
import { staticFile, type StaticFiles } from './static.js';

/** Where `npm run build` puts the page (the same place from src/http and from dist/http). */
export const WEB_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

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
/** vite names built files name-HASH.ext (eight characters of hash). */
const HASHED = /-[\w-]{8}\.[a-z0-9]+$/;

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

export interface WebPage {
  /** Whether a built page was found. */
  readonly built: boolean;
  /** GET / and /assets/… of the page; anything else is not the page's. */
  readonly files: StaticFiles;
}

export async function loadWebPage({ dir = WEB_DIR, logger }: { dir?: string; logger?: Logger } = {}): Promise<WebPage> {
  const files = new Map<string, FinishedBody>();
  let names: string[] = [];
  try {
    names = await listFiles(dir);
  } catch {
    // not built
  }
  for (const name of names) {
    if (name !== 'index.html' && !name.startsWith('assets/')) continue;
    const type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    const cacheControl = name !== 'index.html' && HASHED.test(name) ? WEB_CACHE_CONTROL.hashed : WEB_CACHE_CONTROL.page;
    files.set(
      name === 'index.html' ? '/' : `/${name}`,
      staticFile(new Uint8Array(await readFile(path.join(dir, name))), type, cacheControl),
    );
  }
  const built = files.has('/');
  if (!built) logger?.warn({ dir }, 'the web page is not built (run npm run build): / leads to the API docs');
  return { built, files: (pathname) => files.get(pathname) };
}
