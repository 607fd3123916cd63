import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 has no "exports" map, so Node gives every importer its CommonJS build; vite would give
  // our sources the .mjs build instead, and a schema built with one fails instanceof checks in the other.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Database tests each start their own embedded PostgreSQL; two cores do not profit from more forks.
    pool: 'forks',
    maxWorkers: 2,
  },
});
