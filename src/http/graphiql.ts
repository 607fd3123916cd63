// GraphiQL at GET /graphql (for browsers: Accept text/html), a page of our own around yoga's GraphiQL
// bundle, with every asset served from node_modules. Yoga's own page loads its assets from a CDN (which
// users behind firewalls, and our own machines, cannot reach), starts with inline scripts (which a
// Content-Security-Policy of 'self' forbids), gives Monaco its workers as blob: URLs, has no
// Content-Type and ignores `defaultQuery` (its GraphiQL starts from `query`).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { PATHS } from '../request/paths.js';
import { CACHE_CONTROL, type FinishedBody } from './layer.js';
import { PAGE_CSP } from './security.js';
import { staticFile, type StaticFiles } from './static.js';

const require = createRequire(import.meta.url);
const DIST = path.join(path.dirname(require.resolve('@graphql-yoga/graphiql/package.json')), 'dist');
export const ASSET_PREFIX = PATHS.graphiqlAssets;

export const DEFAULT_QUERY = `# Savings offers for 25,000 euros, best return first
query {
  products(amount: "25000", type: ALL, pageSize: 5) {
    total
    items {
      id
      name
      brand { name country }
      headlineRate
      calc { comparableYield returnPerYear netInterest }
      dgs { covered fullyCovered sharedWith }
    }
  }
}
`;

const TITLE = 'Savings-rate API';

/** Files of the GraphiQL bundle we serve, and their types. */
const FILES: Record<string, string> = {
  'graphiql.css': 'text/css; charset=utf-8',
  'yoga-graphiql.umd.js': 'text/javascript; charset=utf-8',
  'monacoeditorwork/editor.worker.bundle.js': 'text/javascript; charset=utf-8',
  'monacoeditorwork/json.worker.bundle.js': 'text/javascript; charset=utf-8',
  'monacoeditorwork/graphql.worker..bundle.js': 'text/javascript; charset=utf-8',
};

// Monaco asks for a worker per language; same-origin URLs are allowed by the page's CSP, blob: URLs not.
const WORKERS = {
  editorWorkerService: `${ASSET_PREFIX}monacoeditorwork/editor.worker.bundle.js`,
  json: `${ASSET_PREFIX}monacoeditorwork/json.worker.bundle.js`,
  graphql: `${ASSET_PREFIX}monacoeditorwork/graphql.worker..bundle.js`,
};

const START_JS =
  `// Starts GraphiQL on this page (a file, not an inline script: the page's CSP allows only this origin).
self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_id, label) => (${JSON.stringify(WORKERS)}` +
  `)[label] ?? ${JSON.stringify(WORKERS.editorWorkerService)} };
YogaGraphiQL.renderYogaGraphiQL(document.getElementById('graphiql'), ` +
  `${JSON.stringify({ title: TITLE, endpoint: PATHS.graphql, query: DEFAULT_QUERY })});
`;

export const FAVICON_SVG_PATH = `${ASSET_PREFIX}favicon.svg`;

/** A euro sign on a coin: the tab of the API's pages. */
export const FAVICON_SVG =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" ` +
  `fill="#0b5cad"/><path d="M21.5 10.2a7 7 0 1 0 0 11.6" fill="none" stroke="#fff" stroke-width="2.6" ` +
  `stroke-linecap="round"/><path d="M8 14h9M8 18h9" stroke="#fff" stroke-width="2.2" ` +
  `stroke-linecap="round"/></svg>`;

export const PAGE_HTML =
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${TITLE} — GraphiQL</title>
<link rel="icon" type="image/svg+xml" href="${ASSET_PREFIX}favicon.svg">
<link rel="stylesheet" href="${ASSET_PREFIX}graphiql.css">
<link rel="stylesheet" href="${ASSET_PREFIX}page.css">
</head>
<body>
<noscript>GraphiQL needs JavaScript. The same API answers plain HTTP: POST /graphql, or GET /graphql?query=…; ` +
  `the REST API is described at /api/docs.</noscript>
<div id="graphiql">Loading GraphiQL…</div>
<script src="${ASSET_PREFIX}yoga-graphiql.umd.js"></script>
<script src="${ASSET_PREFIX}start.js"></script>
</body>
</html>
`;

const PAGE_CSS = 'html, body, #graphiql { height: 100%; margin: 0; }\n';

/** Files made here rather than read from the bundle. */
const OWN: Record<string, { type: string; body: string }> = {
  'start.js': { type: 'text/javascript; charset=utf-8', body: START_JS },
  'page.css': { type: 'text/css; charset=utf-8', body: PAGE_CSS },
  'favicon.svg': { type: 'image/svg+xml', body: FAVICON_SVG },
};

/**
 * GraphiQL's page keeps a looser policy than PAGE_CSP: its editor (Monaco) applies inline styles and
 * embeds its icon fonts as data: URLs. Scripts, connections and everything else stay this origin's.
 */
export const GRAPHIQL_CSP = PAGE_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace(
  "font-src 'self'",
  "font-src 'self' data:",
);

/** The bundle's files and ours under /graphiql/, read on first use (a browser asks for them once a day). */
export function graphiqlFiles(): StaticFiles {
  const files = new Map<string, FinishedBody | Promise<FinishedBody>>();
  for (const [name, own] of Object.entries(OWN))
    files.set(ASSET_PREFIX + name, staticFile(new TextEncoder().encode(own.body), own.type, CACHE_CONTROL.assets));
  return (pathname) => {
    let file = files.get(pathname);
    const name = pathname.slice(ASSET_PREFIX.length);
    if (!file && pathname.startsWith(ASSET_PREFIX) && FILES[name]) {
      file = readFile(path.join(DIST, name)).then((bytes) =>
        staticFile(new Uint8Array(bytes), FILES[name]!, CACHE_CONTROL.assets),
      );
      files.set(pathname, file);
      file.then((done) => files.set(pathname, done)).catch(() => files.delete(pathname));
    }
    return file;
  };
}

const wantsPage = (request: Request) =>
  (request.method === 'GET' || request.method === 'HEAD') &&
  (request.headers.get('accept') ?? '').includes('text/html');

/** GraphiQL's page at /graphql for browsers; GraphQL requests go on to yoga. */
export function graphiql(): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === PATHS.graphql && wantsPage(request)) {
        endResponse(
          new fetchAPI.Response(PAGE_HTML, {
            headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': GRAPHIQL_CSP },
          }),
        );
      }
    },
  };
}
