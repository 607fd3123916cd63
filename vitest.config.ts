import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Database tests each start their own embedded PostgreSQL; two cores do not profit from more forks.
    pool: 'forks',
    maxWorkers: 2,
  },
});
