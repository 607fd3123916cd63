// GraphiQL at GET /graphql, with its assets served from node_modules: yoga's page loads them from a
// CDN, which users behind firewalls (and our own machines) cannot reach.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { renderGraphiQL, type Plugin } from 'graphql-yoga';

const require = createRequire(import.meta.url);
const DIST = path.join(path.dirname(require.resolve('@graphql-yoga/graphiql/package.json')), 'dist');
export const ASSET_PREFIX = '/graphiql/';

const ASSETS: Record<string, string> = {
  'graphiql.css': 'text/css; charset=utf-8',
  'yoga-graphiql.umd.js': 'text/javascript; charset=utf-8',
  'monacoeditorwork/editor.worker.bundle.js': 'text/javascript; charset=utf-8',
  'monacoeditorwork/json.worker.bundle.js': 'text/javascript; charset=utf-8',
  'monacoeditorwork/graphql.worker..bundle.js': 'text/javascript; charset=utf-8',
};

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

/** yoga's page, pointed at our copies of the assets. */
export const renderLocalGraphiQL: typeof renderGraphiQL = (options) =>
  renderGraphiQL(options)
    .replace(/https:\/\/unpkg\.com\/@graphql-yoga\/graphiql@[^/]+\/dist\//g, ASSET_PREFIX)
    .replace(/<link rel=icon href=[^>]+>/, '');

export function graphiqlAssets(): Plugin {
  const cache = new Map<string, Promise<Buffer>>();
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(ASSET_PREFIX)) return;
      const name = url.pathname.slice(ASSET_PREFIX.length);
      const type = ASSETS[name];
      if (!type) return; // unknown: the 404 handling answers
      let body = cache.get(name);
      if (!body) {
        body = readFile(path.join(DIST, name));
        cache.set(name, body);
      }
      return body.then((bytes) =>
        endResponse(
          new fetchAPI.Response(new Uint8Array(bytes), {
            headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
          }),
        ),
      );
    },
  };
}
