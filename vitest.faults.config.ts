import { defineConfig } from 'vitest/config';

// The fault-injection suite: slower scenarios that kill processes and restart services.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Each file has its own database, Redis prefix and servers: two at a time share the 2 cores.
    maxWorkers: 2,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
