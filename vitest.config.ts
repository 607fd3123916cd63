import { defineConfig } from 'vitest/config';

/**
 * Tests that run the service as `npm start` does, on the embedded database whatever TEST_DATABASE_URL
 * says: the PostgreSQL pass of CI would run them again unchanged.
 */
const EMBEDDED_ONLY = [
  'test/capacity.test.ts',
  'test/cluster.test.ts',
  'test/lifecycle.test.ts',
  'test/persisted-queries.test.ts',
  'test/shutdown-ingest.test.ts',
];

/**
 * Tests whose subject lies above the database or beside it (the calculation, the HTTP front, the page's
 * model, the docs and the floors, the embedded database itself): they read nothing a PostgreSQL server
 * would answer differently, so the PostgreSQL pass of CI leaves them to the first.
 */
const ABOVE_THE_DATABASE = [
  'src/domain/**',
  'src/http/**',
  'src/web/**',
  'src/rest/**',
  'src/cluster/**',
  'test/embedded.test.ts',
  'test/docs.test.ts',
  'test/floors.test.ts',
  'test/deploy.test.ts',
  'test/runtime.test.ts',
  'test/bundle.test.ts',
  'test/cors.test.ts',
  'test/security-headers.test.ts',
  'test/openapi.test.ts',
  'test/graphiql.test.ts',
];

export default defineConfig({
  // graphql 16 has no "exports" map, so Node gives every importer its CommonJS build; vite would give
  // our sources the .mjs build instead, and a schema built with one fails instanceof checks in the other.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      ...(process.env.TEST_DATABASE_URL ? [...EMBEDDED_ONLY, ...ABOVE_THE_DATABASE] : []),
      // A 20x market and restarts with growing delays: minutes of the machine's two cores, and timing that
      // a loaded CI machine does not keep. `npm run test:capacity` runs it on its own.
      ...(process.env.CAPACITY_TESTS ? [] : ['test/capacity.test.ts']),
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Database tests each start their own embedded PostgreSQL; two cores do not profit from more forks.
    pool: 'forks',
    maxWorkers: 2,
  },
});
