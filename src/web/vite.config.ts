// Builds the comparison page into dist/web: hashed, immutable files under assets/ and an index.html
// that only refers to them (no inline script or style, so it runs under a strict Content-Security-Policy).
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/** All JavaScript the page can load, gzipped, must stay within this (the budget). */
export const JS_BUDGET_BYTES = 150 * 1024;

/** Fails the build when the JavaScript grows past the budget, and says how big each file is. */
function jsBudget(limit: number): Plugin {
  return {
    name: 'js-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      let total = 0;
      const lines: string[] = [];
      for (const file of Object.values(bundle)) {
        if (file.type !== 'chunk') continue;
        const gzipped = gzipSync(file.code, { level: 9 }).byteLength;
        total += gzipped;
        lines.push(`  ${file.fileName}: ${(gzipped / 1024).toFixed(1)} KB gzipped`);
      }
      const summary =
        `JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in total ` +
        `(budget ${limit / 1024} KB)\n${lines.join('\n')}`;
      if (total > limit) this.error(`over the JavaScript budget. ${summary}`);
      this.info(summary);
    },
  };
}

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
  plugins: [jsBudget(JS_BUDGET_BYTES)],
  // npm run dev:web: the page with hot reload, the API from a service running on port 3000.
  server: {
    port: 5173,
    proxy: { '/graphql': 'http://localhost:3000', '/api': 'http://localhost:3000' },
  },
});
