import { defineConfig } from 'vitest/config';

// Test files that measure request pacing against the simulator's rate-limit windows: they run one
// at a time after the others, because a CPU shared with other test files delays requests by more
// than the pacer's margin (and the simulator, in the test's process, then sees them bunched).
const PACED = [
  'test/upstream/client-simulator.test.ts',
  'test/upstream/rate-limiter*.test.ts',
  'test/pipeline/worker-processes.test.ts',
  'test/pipeline/overload.test.ts',
  'test/bench/cadence-end-to-end.test.ts',
];

// Most files wait on Postgres, Redis and child processes, the fault scenarios on restarts and
// outages: four at a time keep 2 cores busy (three left a fifth of them idle). The fault scenarios
// run among the others (the projects of one group share one count of workers).
const FILES_AT_ONCE = 4;

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/faults/**', 'node_modules/**', ...PACED],
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // The fault-injection scenarios: they kill processes and restart services (docs/reliability.md).
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          testTimeout: 300_000,
          maxWorkers: FILES_AT_ONCE,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'paced',
          include: PACED,
          maxWorkers: 1,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
